package restore

import (
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// The lines after PO-1's come in one order: why it was taken at the
// compaction (PO-18), which pointer it supersedes (PO-19), how the
// compaction was prepared (PO-15), what the read missed (PO-14); and a
// pointer made from the record alone, as watch's late pointer is, says the
// snapshot was taken at the compaction and has neither of the first two.
// spec: PO-20, PO-21
func TestPointerLineOrder(t *testing.T) {
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		t.Run(string(lang), func(t *testing.T) {
			rec := *partialInput(lang).Record
			rec.HookEvent = "SessionStart"
			rec.Preparation = prepared(snapshot.Emergency).Preparation
			in := partialInput(lang)
			in.Record = &rec
			in.Taken = &Taken{}
			in.Supersedes = time.Date(2026, 3, 14, 10, 2, 36, 0, time.UTC)
			full := strings.Split(Pointer(in), "\n")

			// Each line's text is the one the same input gives alone.
			alone := func(edit func(*PointerInput)) string {
				r := *partialInput(lang).Record
				one := partialInput(lang)
				one.Record = &r
				edit(&one)
				lines := strings.Split(Pointer(one), "\n")
				if len(lines) < 2 {
					t.Fatalf("pointer of %d lines", len(lines))
				}
				return lines[1]
			}
			po18 := alone(func(p *PointerInput) {
				p.Record.HookEvent = "SessionStart"
				p.Record.Coverage = rec.Coverage
				p.Taken = &Taken{}
			})
			po14 := alone(func(*PointerInput) {})
			want := []string{po18, "", "", po14}
			if len(full) < 5 {
				t.Fatalf("pointer:\n%s", strings.Join(full, "\n"))
			}
			if full[1] != want[0] || full[4] != want[3] {
				t.Errorf("lines 2 and 5 are %q and %q, want PO-18's %q and PO-14's %q", full[1], full[4], want[0], want[3])
			}
			supersedes := map[snapshot.Lang]string{snapshot.English: "supersedes the one of 10:02 UTC", snapshot.Russian: "10:02 UTC"}[lang]
			if !strings.Contains(full[2], supersedes) {
				t.Errorf("line 3 %q is not PO-19's", full[2])
			}
			emergency := map[snapshot.Lang]string{snapshot.English: "This compaction was an emergency: ", snapshot.Russian: "Это сжатие аварийное: "}[lang]
			if !strings.HasPrefix(full[3], emergency) {
				t.Errorf("line 4 %q is not PO-15's", full[3])
			}

			// From the record alone: the first line still says "at the
			// compaction", and neither PO-18's nor PO-19's line is there.
			late := partialInput(lang)
			late.Record = &rec
			lines := strings.Split(Pointer(late), "\n")
			at := map[snapshot.Lang]string{snapshot.English: "taken at the compaction", snapshot.Russian: "сделанный при сжатии"}[lang]
			if !strings.Contains(lines[0], at) {
				t.Errorf("late first line %q", lines[0])
			}
			if len(lines) < 3 || lines[1] != full[3] || lines[2] != full[4] {
				t.Errorf("the late pointer's next lines are not PO-15's and PO-14's:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}
