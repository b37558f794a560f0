package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Sample is the box's load at one moment, for the crowd's test.
type Sample struct {
	// At is when the radio's list was read, on the box's clock (the
	// clock of the crowd's report).
	At time.Time `json:"at"`
	// Stations is how many associated stations the radio lists (iw dev
	// IF station dump), -1 when it could not be read; Authenticating
	// counts those it lists as not associated (a phone between its
	// authentication and its association, taken or refused), which are
	// not phones on the hotspot yet.
	Stations       int `json:"stations"`
	Authenticating int `json:"authenticating"`
	// CPUBusy and CPUTotal are the jiffies of /proc/stat's cpu line.
	CPUBusy  uint64 `json:"cpuBusy"`
	CPUTotal uint64 `json:"cpuTotal"`
	// MemAvailableKiB is /proc/meminfo's MemAvailable.
	MemAvailableKiB int `json:"memAvailableKiB"`
	// RSSKiB sums the resident memory of the processes by name, Count
	// counts them (eventbox, wpa_supplicant, boxagent, dnsmasq,
	// NetworkManager).
	RSSKiB map[string]int `json:"rssKiB"`
	Count  map[string]int `json:"count"`
}

// sample prints the box's load as JSON: the radio's stations on the
// interface named in args (wlan0 by default), the CPU's counters, the
// memory available and the resident memory of the box's processes.
func sample(args []string) error {
	iface := "wlan0"
	if len(args) > 0 {
		iface = args[0]
	}
	s := Sample{Stations: -1, RSSKiB: map[string]int{}, Count: map[string]int{}}
	if out, err := exec.Command("iw", "dev", iface, "station", "dump").Output(); err == nil {
		s.Stations = 0
		for _, st := range strings.Split("\n"+string(out), "\nStation ")[1:] {
			if strings.Contains(st, "\tassociated:\tno") {
				s.Authenticating++
			} else {
				s.Stations++
			}
		}
	}
	s.At = time.Now()
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(b), "\n")
		f := strings.Fields(line)
		for i, v := range f[1:] {
			n, _ := strconv.ParseUint(v, 10, 64)
			s.CPUTotal += n
			if i != 3 && i != 4 { // idle, iowait
				s.CPUBusy += n
			}
		}
	}
	s.MemAvailableKiB = meminfo("MemAvailable:")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "status"))
		if err != nil {
			continue
		}
		name, rss := "", 0
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "Name:" {
				name = f[1]
			}
			if len(f) >= 2 && f[0] == "VmRSS:" {
				rss, _ = strconv.Atoi(f[1])
			}
		}
		switch name {
		case "eventbox", "wpa_supplicant", "boxagent", "dnsmasq", "NetworkManager":
			s.RSSKiB[name] += rss
			s.Count[name]++
		}
	}
	return json.NewEncoder(os.Stdout).Encode(s)
}

func meminfo(key string) int {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == key {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}
