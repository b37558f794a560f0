package netsetup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Runner runs a command and returns its combined output. Tests replace it
// with a fake; ExecRunner is the real one.
type Runner interface {
	// Run runs name with args and returns stdout and stderr together. A
	// command that exits non-zero returns an error.
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs commands with os/exec. The zero value is ready.
type ExecRunner struct{}

var _ Runner = ExecRunner{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("running %s: %w", name, err)
	}
	return out, nil
}

// Applier carries out a Plan.
type Applier struct {
	// Runner runs the plan's commands. Must not be nil.
	Runner Runner
	// Root is prefixed to the paths of written and removed files; empty
	// means "/". Tests point it at a temporary directory.
	Root string
	// Logger receives one line per step. Must not be nil.
	Logger *slog.Logger
}

// Apply carries out the steps of p in order and stops at the first failure
// of a step that may not fail, returning an error that names the step and
// quotes the command's output.
func (a Applier) Apply(ctx context.Context, p Plan) error {
	for i, s := range p.Steps {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("applying %s: %w", p.Title, err)
		}
		a.Logger.InfoContext(ctx, "netsetup step", "n", i+1, "step", s.Why)
		if err := a.apply(ctx, s); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.Why, err)
		}
	}
	return nil
}

func (a Applier) apply(ctx context.Context, s Step) error {
	switch s.Kind {
	case StepRun:
		if len(s.Argv) == 0 {
			return errors.New("no command to run")
		}
		out, err := a.Runner.Run(ctx, s.Argv[0], s.Argv[1:]...)
		if err != nil {
			if s.IgnoreFailure {
				a.Logger.DebugContext(ctx, "netsetup step failed, as it may", "error", err, "output", strings.TrimSpace(string(out)))
				return nil
			}
			if msg := strings.TrimSpace(string(out)); msg != "" {
				return fmt.Errorf("%w: %s", err, msg)
			}
			return err
		}
		return nil
	case StepWrite:
		return writeFileAtomic(rooted(a.Root, s.Path), []byte(s.Content), s.Mode)
	case StepRemove:
		if err := os.Remove(rooted(a.Root, s.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", s.Path, err)
		}
		return nil
	case StepNote:
		a.Logger.WarnContext(ctx, "netsetup", "warning", s.Why)
		return nil
	default:
		return fmt.Errorf("unknown step kind %d", s.Kind)
	}
}

// rooted returns the absolute path p under root ("" meaning "/").
func rooted(root, p string) string {
	if root == "" {
		return p
	}
	return filepath.Join(root, p)
}

// writeFileAtomic writes data to a temporary file beside path, syncs it and
// renames it over path, so that a power cut leaves the old or the new file.
// A zero mode leaves the permissions as the file system gives them (a FAT
// boot partition refuses a chmod that changes them); the directory is
// synced after the rename, as far as the file system allows.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	return writeFileAs(path, data, mode, nil)
}

// Print writes p for a dry run: each step with its reason, commands as a
// shell would read them and file contents indented. Passwords (psk lines)
// are masked. It returns the first write error.
func (p Plan) Print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# plan: %s (dry run: nothing was changed)\n", p.Title)
	for i, s := range p.Steps {
		fmt.Fprintf(bw, "%d. %s\n", i+1, s.Why)
		switch s.Kind {
		case StepRun:
			suffix := ""
			if s.IgnoreFailure {
				suffix = "   # may fail"
			}
			fmt.Fprintf(bw, "   $ %s%s\n", shellJoin(s.Argv), suffix)
		case StepWrite:
			fmt.Fprintf(bw, "   write %s (mode %04o):\n", s.Path, s.Mode.Perm())
			for _, line := range strings.Split(strings.TrimSuffix(s.Content, "\n"), "\n") {
				if strings.HasPrefix(line, "psk=") {
					line = "psk=********"
				}
				fmt.Fprintln(bw, strings.TrimRight("   | "+line, " "))
			}
		case StepRemove:
			fmt.Fprintf(bw, "   remove %s\n", s.Path)
		case StepNote:
			fmt.Fprintf(bw, "   (warning only)\n")
		}
	}
	return bw.Flush()
}

// shellJoin quotes argv for display as a shell command line.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
