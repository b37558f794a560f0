package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"eventbox/imaging/isolate"
)

// runDecode is the hidden command the daemon starts to decode one large
// photo in a process of its own (package isolate): the image on standard
// input, its variants on standard output.
func runDecode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(isolate.Command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	memory := fs.Int64("memory", isolate.DefaultMemoryBytes, "the process's memory limit, in bytes")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "eventbox %s: unexpected arguments %q\n", isolate.Command, fs.Args())
		return 2
	}
	return isolate.Serve(ctx, stdin, stdout, stderr, *memory)
}
