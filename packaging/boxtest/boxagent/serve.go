package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Exec is a command the test runs in the machine.
type Exec struct {
	Argv []string `json:"argv"`
	// Netns names a namespace of /run/netns to run the command in ("" for
	// the box's own).
	Netns string `json:"netns,omitempty"`
	// Background starts the command and answers at once (its output goes
	// to /run/boxtest/NAME.log, NAME being Background).
	Background string `json:"background,omitempty"`
	TimeoutSec int    `json:"timeoutSec,omitempty"`
}

// ExecResult is what the command did.
type ExecResult struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func serve(addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /exec", handleExec)
	mux.HandleFunc("PUT /file", func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Query().Get("path")
		mode, err := strconv.ParseUint(r.URL.Query().Get("mode"), 8, 32)
		if err != nil || !filepath.IsAbs(path) {
			http.Error(w, "path must be absolute and mode octal", http.StatusBadRequest)
			return
		}
		if err := writeFile(path, r.Body, os.FileMode(mode)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /file", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, r.URL.Query().Get("path"))
	})
	// The machine's own files by path, for a client in the machine that
	// resolves URLs relative to another (a release's binary beside its
	// manifest).
	mux.Handle("GET /files/", http.StripPrefix("/files", http.FileServer(http.Dir("/"))))
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 30 * time.Second}
	return srv.ListenAndServe()
}

func writeFile(path string, body io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".part"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func handleExec(w http.ResponseWriter, r *http.Request) {
	var req Exec
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Argv) == 0 {
		http.Error(w, "want {argv: [...]}", http.StatusBadRequest)
		return
	}
	argv := req.Argv
	if req.Netns != "" {
		argv = append([]string{"nsenter", "--net=/run/netns/" + req.Netns, "--"}, argv...)
	}
	if req.Background != "" {
		if err := os.MkdirAll("/run/boxtest", 0o755); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		log, err := os.Create("/run/boxtest/" + filepath.Base(req.Background) + ".log")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			log.Close()
			writeJSON(w, ExecResult{Code: -1, Stderr: err.Error()})
			return
		}
		go func() { _ = cmd.Wait(); log.Close() }()
		writeJSON(w, ExecResult{Stdout: strconv.Itoa(cmd.Process.Pid)})
		return
	}
	timeout := time.Duration(req.TimeoutSec) * time.Second
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := ExecResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		res.Code = -1
		res.Stderr += fmt.Sprintf("\nboxagent: %v", err)
	}
	writeJSON(w, res)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
