package residue

import (
	"strings"
)

// Tags of the summarizer's raw reply (PostCompact's compact_summary).
const (
	analysisOpen  = "<analysis>"
	analysisClose = "</analysis>"
	summaryOpen   = "<summary>"
	summaryClose  = "</summary>"
)

// ModelText is the part of the summarizer's raw reply (PostCompact's
// compact_summary) that the model is given (RS-2): the <analysis> blocks, a
// drafting scratchpad the client strips, are dropped, and the <summary> tags
// around the rest are removed. A reply without tags is taken whole.
func ModelText(raw string) string {
	s := raw
	for {
		i := strings.Index(s, analysisOpen)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], analysisClose)
		if j < 0 {
			// Never closed: the client keeps it, and so does this.
			break
		}
		s = s[:i] + s[i+j+len(analysisClose):]
	}
	if i := strings.Index(s, summaryOpen); i >= 0 {
		rest := s[i+len(summaryOpen):]
		if j := strings.Index(rest, summaryClose); j >= 0 {
			rest = rest[:j] + rest[j+len(summaryClose):]
		}
		s = s[:i] + rest
	}
	return strings.TrimSpace(s)
}

// wrapperLines start the lines the client wraps a summary in when it
// writes the summary into the transcript (the isCompactSummary entry,
// RS-3): its own statements, not the summarizer's, and one of them holds
// the transcript's path, which is no fact of the session.
var wrapperLines = []string{
	"This session is being continued from a previous conversation",
	"If you need specific details from before compaction",
	"Please continue the conversation from where",
	"Continue the conversation from where it left off",
	"The messages after this summary are the most recent messages",
}

// TranscriptText is the summary of a transcript's isCompactSummary entry
// without the client's wrapper (RS-3): its opening and closing statements
// and its <system-reminder> blocks go, the rest is taken as the model was
// given it. Releases before 2.1.76 kept the summarizer's analysis there,
// under "Analysis:", and gave it to the model, so it stays.
func TranscriptText(entry string) string {
	s := entry
	for {
		i := strings.Index(s, "<system-reminder>")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "</system-reminder>")
		if j < 0 {
			break
		}
		s = s[:i] + s[i+j+len("</system-reminder>"):]
	}
	var b strings.Builder
	for _, ln := range strings.SplitAfter(s, "\n") {
		t := strings.TrimSpace(ln)
		drop := false
		for _, w := range wrapperLines {
			if strings.HasPrefix(t, w) {
				drop = true
				break
			}
		}
		if !drop {
			b.WriteString(ln)
		}
	}
	return strings.TrimSpace(b.String())
}
