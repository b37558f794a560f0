package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/backups"
	"eventbox/daemon/backupzip"
	"eventbox/daemon/storage"
	"eventbox/store"
)

// cliLockTimeout is how long backup and restore wait for the database's
// lock: a running daemon holds it, and the command says so at once
// (docs/design.md, "CLI and a running daemon").
const cliLockTimeout = 500 * time.Millisecond

// openForCLI opens the store of DATA_DIR, or says that the daemon runs.
func openForCLI(ctx context.Context, dataDir, what string, stderr io.Writer) (*store.Store, bool) {
	st, err := store.Open(ctx, dataDir, store.Options{LockTimeout: cliLockTimeout, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if errors.Is(err, store.ErrLocked) {
		fmt.Fprintf(stderr, "eventbox: the daemon is running and holds %s; %s\n", dataDir, what)
		return nil, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return nil, false
	}
	return st, true
}

// runBackup writes a backup ZIP of DATA_DIR: to --out FILE ("-" for
// standard output), else to where scheduled backups go (DATA_DIR/backups,
// or a USB drive with an eventbox-backups folder). The daemon must be
// stopped; while it runs, the console downloads the same ZIP.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := newFlagSet("backup", stderr)
	cf := newConfigFlags(fs, getenv)
	out := fs.String("out", "", `file to write the backup to ("-": standard output); default: DATA_DIR/backups or a USB drive`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: eventbox backup [flags] [--out FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	st, ok := openForCLI(ctx, cf.cfg.DataDir, "download a backup from the console (Settings, Backup) or stop it first (sudo systemctl stop eventbox)", stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	opts := backupzip.WriteOptions{App: version}
	if *out == "-" {
		if _, err := backupzip.Write(ctx, st, stdout, opts); err != nil {
			fmt.Fprintf(stderr, "eventbox: writing the backup: %v\n", err)
			return 1
		}
		return 0
	}
	dir, name := "", ""
	if *out != "" {
		dir, name = filepath.Dir(*out), filepath.Base(*out)
	} else {
		target := backupzip.ChooseTarget(backupzip.TargetConfig{DataDir: cf.cfg.DataDir})
		dir, name = target.Dir, backupzip.FileName(time.Now(), backups.ReasonManual)
	}
	m, size, err := backupzip.WriteFile(ctx, st, dir, name, opts)
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: writing the backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Backup written to %s (%d files, %d bytes).\n", filepath.Join(dir, name), len(m.Files), size)
	return 0
}

// runRestore replaces DATA_DIR's data with a backup ZIP: every file is
// checked against the manifest and staged first, then swapped in (the
// same journal a restore through the console uses). The daemon must be
// stopped.
func runRestore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := newFlagSet("restore", stderr)
	cf := newConfigFlags(fs, getenv)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: eventbox restore [flags] FILE")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	file := fs.Arg(0)
	st, ok := openForCLI(ctx, cf.cfg.DataDir, "restore from the console (Settings, Backup) or stop it first (sudo systemctl stop eventbox)", stderr)
	if !ok {
		return 1
	}
	defer st.Close()
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	zr, err := backupzip.OpenZip(f, info.Size())
	if re, ok := backupzip.IsRefused(err); ok {
		fmt.Fprintf(stderr, "eventbox: backup refused, nothing changed: %s %s: %s\n", file, re.File, re.Reason)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %s is not a backup ZIP: %v\n", file, err)
		return 1
	}
	free, err := storage.Statfs(cf.cfg.DataDir)
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	m, err := backupzip.Stage(ctx, zr, backupzip.StageConfig{DataDir: cf.cfg.DataDir, Room: free - daemon.StorageMargin(cf.cfg)})
	if re, ok := backupzip.IsRefused(err); ok {
		fmt.Fprintf(stderr, "eventbox: backup refused, nothing changed: %s %s\n", re.File, re.Reason)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: staging the backup, nothing changed: %v\n", err)
		return 1
	}
	if err := store.CommitRestore(cf.cfg.DataDir); err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", errors.Join(err, store.AbandonStaging(cf.cfg.DataDir)))
		return 1
	}
	// Closing and opening again swaps the staged data in.
	if err := st.Close(); err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	again, ok := openForCLI(ctx, cf.cfg.DataDir, "the restore finishes when it starts", stderr)
	if !ok {
		return 1
	}
	if err := again.Close(); err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "Restored the backup of %s (%d files, %d bytes); every earlier record, file and session was replaced.\n",
		time.UnixMilli(m.CreatedAt).Format(time.RFC3339), len(m.Files), m.Bytes)
	return 0
}
