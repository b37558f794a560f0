package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"eventbox/daemon/api/accounts"
	"eventbox/store"
)

// runResetPassword sets a new generated password for a console account
// (default: the first owner) and ends its sessions. It refuses to run
// while the daemon holds the database.
func runResetPassword(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return resetPassword(ctx, args, getenv, stdout, stderr, 0)
}

// resetPassword is runResetPassword with the bcrypt cost of the new hash
// as a parameter (0: the library default), so tests can lower it.
func resetPassword(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, cost int) int {
	fs := newFlagSet("reset-password", stderr)
	cf := newConfigFlags(fs, getenv)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: eventbox reset-password [flags] [username]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	username := cf.cfg.AdminUsername
	if fs.NArg() == 1 {
		username = fs.Arg(0)
	}
	st, err := store.Open(ctx, cf.cfg.DataDir, store.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if errors.Is(err, store.ErrLocked) {
		fmt.Fprintf(stderr, "eventbox: the daemon is running and holds %s; stop it first (sudo systemctl stop eventbox), then run this again\n", cf.cfg.DataDir)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: %v\n", err)
		return 1
	}
	defer st.Close()
	password, err := accounts.ResetPassword(ctx, st, username, cost)
	if err != nil {
		fmt.Fprintf(stderr, "eventbox: resetting the password of %q: %v\n", username, err)
		return 1
	}
	fmt.Fprintf(stdout, "New password for %s: %s\nAll of this account's sessions have ended.\n", username, password)
	return 0
}
