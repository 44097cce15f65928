package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ResidueSuffix ends the name of the file, next to a snapshot's .json and
// .md, that records what the compaction's summary kept of the snapshot's
// facts and what the residue handed back (SF-63). Like DeliverySuffix it
// ends neither in .json nor in .md.
const ResidueSuffix = ".residue"

// MaxResidueBytes bounds a residue record that ReadResidue reads (SF-65):
// at most a few hundred facts with short labels.
const MaxResidueBytes = 256 << 10

// ResidueLabelChars bounds a fact's label in the record (SF-66).
const ResidueLabelChars = 120

// Where the compared summary came from (SF-63).
const (
	// ResidueFromHook: PostCompact's compact_summary.
	ResidueFromHook = "compact_summary"
	// ResidueFromTranscript: the transcript's summary entry after the
	// compaction's boundary (no PostCompact ran).
	ResidueFromTranscript = "transcript"
)

// Residue records what a compaction's summary kept of its snapshot's
// facts, fact by fact, and what the residue handed back (SF-63 to SF-67).
type Residue struct {
	SessionID string `json:"session_id"`
	// Snapshot is the name of the snapshot compared; the file's name says
	// it too.
	Snapshot string `json:"snapshot"`
	// At is when the comparison was made.
	At time.Time `json:"at"`
	// Source is ResidueFromHook or ResidueFromTranscript.
	Source string `json:"source"`
	// SummaryChars is the length of the text the model holds of the
	// summary, in UTF-16 units as the client counts.
	SummaryChars int `json:"summary_chars"`
	// Facts are every fact compared, in the order of the comparison.
	Facts []ResidueFact `json:"facts"`
	// Given is the hand-over, nil until it was made.
	Given *ResidueGiven `json:"given,omitempty"`
}

// ResidueFact is one fact compared (SF-66).
type ResidueFact struct {
	// Kind is prompt, file, command, failure, task, change or next_step;
	// Key names the fact in its snapshot ("command:17").
	Kind string `json:"kind"`
	Key  string `json:"key"`
	// Text is the fact's first ResidueLabelChars characters, from the
	// snapshot (redacted as the snapshot is).
	Text string `json:"text"`
	// Kept is where the model holds it: "summary", "pointer", "tail"; ""
	// when the summary dropped it.
	Kept string `json:"kept,omitempty"`
	// Rule is the clause of specs/residue.md that found it.
	Rule string `json:"rule,omitempty"`
	// Given is set when the residue handed it back.
	Given bool `json:"given,omitempty"`
}

// ResidueGiven is the residue's hand-over (SF-67).
type ResidueGiven struct {
	At time.Time `json:"at"`
	// Event is the hook event whose output carried it (UserPromptSubmit,
	// PostToolUse, PostToolUseFailure).
	Event string `json:"event"`
	// Chars is the text's length in UTF-16 units; 0 with Facts 0 when the
	// summary dropped nothing and nothing was said.
	Chars int `json:"chars"`
	// Facts is how many dropped facts the text gave back, Omitted how many
	// did not fit in it.
	Facts   int `json:"facts"`
	Omitted int `json:"omitted,omitempty"`
	// TranscriptSize is the transcript's size at the hand-over; Boundary
	// the offset of the compaction's boundary.
	TranscriptSize int64 `json:"transcript_size"`
	Boundary       int64 `json:"boundary"`
	// Supersedes is when the earlier pointer or residue the kept tail
	// still holds was given; zero when there is none.
	Supersedes time.Time `json:"supersedes,omitzero"`
}

// ErrResidueGiven is returned by WriteResidue when the snapshot's residue
// was handed over already: the hand-over is made once (SF-64).
var ErrResidueGiven = errors.New("the residue was handed over already")

// ResiduePath is where the residue of the snapshot named name in dir is
// recorded.
func ResiduePath(dir, name string) string { return filepath.Join(dir, name+ResidueSuffix) }

// WriteResidue records r for the snapshot named r.Snapshot in dir,
// atomically and readable by the user only (SF-64). The snapshot must
// still exist; a record whose hand-over is made already is never replaced
// (ErrResidueGiven), and one without a session id is refused.
func WriteResidue(dir string, r Residue) error {
	if _, ok := ParseName(r.Snapshot); !ok {
		return fmt.Errorf("record residue: %q is not a snapshot name", r.Snapshot)
	}
	if r.SessionID == "" {
		return errors.New("record residue: no session id")
	}
	if _, err := os.Lstat(filepath.Join(dir, r.Snapshot+".json")); err != nil {
		return fmt.Errorf("record residue: %w", err)
	}
	if old, err := ReadResidue(dir, r.Snapshot, r.SessionID); err == nil && old != nil && old.Given != nil {
		return ErrResidueGiven
	}
	r.At = r.At.UTC()
	if r.Given != nil {
		g := *r.Given
		g.At, g.Supersedes = g.At.UTC(), g.Supersedes.UTC()
		r.Given = &g
	}
	if r.Facts == nil {
		r.Facts = []ResidueFact{}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if len(data) > MaxResidueBytes {
		return fmt.Errorf("record residue: %d bytes, over the %d-byte limit", len(data), MaxResidueBytes)
	}
	if err := WriteFileAtomic(ResiduePath(dir, r.Snapshot), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record residue: %w", err)
	}
	return nil
}

// ReadResidue returns the residue recorded for the snapshot named name in
// dir; nil, nil when there is none (SF-65). A file that is not a regular
// file, is not trusted (SEC-13: the error wraps trust.ErrUntrusted), is larger
// than MaxResidueBytes, does not decode, or names another session or
// snapshot is an error.
func ReadResidue(dir, name, sessionID string) (*Residue, error) {
	if _, ok := ParseName(name); !ok {
		return nil, fmt.Errorf("residue: %q is not a snapshot name", name)
	}
	var r Residue
	err := readJSONRecord(ResiduePath(dir, name), MaxResidueBytes, "residue record of "+name, &r)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.SessionID != sessionID {
		return nil, fmt.Errorf("residue record of %s names another session", name)
	}
	if r.Snapshot != name {
		return nil, fmt.Errorf("residue record of %s names snapshot %q", name, r.Snapshot)
	}
	return &r, nil
}

// ResidueCounts sums a residue's facts by kind (SF-66): how many were compared,
// kept by each source, dropped, and given back.
type ResidueCounts struct {
	Facts   int `json:"facts"`
	Summary int `json:"summary"`
	Pointer int `json:"pointer"`
	Tail    int `json:"tail"`
	Dropped int `json:"dropped"`
	Given   int `json:"given"`
}

// CountsBy returns the counts of every kind, in the order kinds first
// appear, and of all facts together under "".
func (r *Residue) CountsBy() (kinds []string, counts map[string]ResidueCounts) {
	counts = map[string]ResidueCounts{}
	for _, f := range r.Facts {
		for _, k := range []string{f.Kind, ""} {
			c, ok := counts[k]
			if !ok && k != "" {
				kinds = append(kinds, k)
			}
			c.Facts++
			switch f.Kept {
			case "summary":
				c.Summary++
			case "pointer":
				c.Pointer++
			case "tail":
				c.Tail++
			default:
				c.Dropped++
			}
			if f.Given {
				c.Given++
			}
			counts[k] = c
		}
	}
	return kinds, counts
}
