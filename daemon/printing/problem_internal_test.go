package printing

import (
	"errors"
	"testing"

	"eventbox/daemon/printing/cups"
)

// TestProblemOfNamesWhatNeedsAPerson maps CUPS's printer states and
// reasons to the one word the booth and the console say.
func TestProblemOfNamesWhatNeedsAPerson(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       *cups.Printer
		err     error
		problem string
	}{
		{"idle, no reasons", &cups.Printer{State: cups.PrinterIdle}, nil, ""},
		{"a warning is not a problem yet", &cups.Printer{State: cups.PrinterIdle, Reasons: []string{"media-low-warning", "marker-supply-low-warning"}}, nil, ""},
		{"out of paper", &cups.Printer{State: cups.PrinterProcessing, Reasons: []string{"media-empty-error"}}, nil, "paper"},
		{"paper needed, reported", &cups.Printer{State: cups.PrinterProcessing, Reasons: []string{"media-needed-report"}}, nil, "paper"},
		{"the ink cassette", &cups.Printer{State: cups.PrinterStopped, Reasons: []string{"paused", "marker-supply-empty-error"}}, nil, "ink"},
		{"a jam", &cups.Printer{State: cups.PrinterStopped, Reasons: []string{"media-jam"}}, nil, "jam"},
		{"the cover", &cups.Printer{State: cups.PrinterProcessing, Reasons: []string{"cover-open-error"}}, nil, "cover"},
		{"off", &cups.Printer{State: cups.PrinterProcessing, Reasons: []string{"offline-report"}}, nil, "offline"},
		{"stopped in CUPS", &cups.Printer{State: cups.PrinterStopped, Reasons: []string{"paused"}}, nil, "paused"},
		{"stopped without a reason", &cups.Printer{State: cups.PrinterStopped}, nil, "paused"},
		{"an error CUPS has no word for", &cups.Printer{State: cups.PrinterProcessing, Reasons: []string{"com.canon-ribbon-error"}}, nil, "other"},
		{"the print server away", nil, errors.New("dial unix: no such file"), "offline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := problemOf(tc.p, tc.err); got != tc.problem {
				t.Errorf("problemOf = %q, want %q", got, tc.problem)
			}
		})
	}
}
