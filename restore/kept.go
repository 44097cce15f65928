package restore

import (
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript"
)

// KeptText is the text of a compaction's kept tail (RS-16), and when the
// newest earlier pointer or residue it holds was given (RS-23): a hook
// context naming another snapshot, or a residue's.
func KeptText(tail transcript.KeptTail, own string) (string, time.Time) {
	var parts []string
	var supersedes time.Time
	for _, e := range tail.Entries {
		parts = append(parts, e.Texts...)
		if e.Context == "" {
			continue
		}
		named := selectsnap.NamedSnapshot(e.Context)
		if (named != "" && named != own) || IsResidue(e.Context) {
			if e.Time.After(supersedes) {
				supersedes = e.Time
			}
		}
	}
	return strings.Join(parts, "\n"), supersedes
}
