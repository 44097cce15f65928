package handoff

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

var now = time.Date(2026, 12, 1, 10, 22, 5, 0, time.UTC)

// fill replaces every hint comment of a template with text.
func fill(tpl, text string) string {
	var out []string
	for _, l := range strings.Split(tpl, "\n") {
		if strings.HasPrefix(l, "<!-- ") && !strings.Contains(l, "compact-guard") {
			l = text
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func keys() []string {
	var k []string
	for _, s := range Sections {
		k = append(k, s.Key)
	}
	return k
}

// spec: HO-1
func TestHO1TemplateIsAnEmptyDatedBlock(t *testing.T) {
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		tpl := Template(lang, now.In(time.FixedZone("MSK", 3*3600)))
		if !strings.HasPrefix(tpl, "## HANDOFF 2026-12-01T10:22:05Z\n") {
			t.Errorf("%s: template starts %q", lang, strings.SplitN(tpl, "\n", 2)[0])
		}
		blocks := Parse([]byte(tpl))
		if len(blocks) != 1 {
			t.Fatalf("%s: %d blocks in the template", lang, len(blocks))
		}
		b := blocks[0]
		if !b.Time.Equal(now) || len(b.Missing) != 0 || !slices.Equal(b.Empty, keys()) || b.Complete() {
			t.Errorf("%s: template parses as %+v, want dated, every section present and empty", lang, b)
		}
		done := Parse([]byte(fill(tpl, "none")))[0]
		if !done.Complete() || !slices.Equal(done.Filled, keys()) {
			t.Errorf("%s: filled template parses as %+v", lang, done)
		}
	}
	ru := Template(snapshot.Russian, now)
	for _, s := range Sections {
		if !strings.Contains(ru, "### "+s.Ru+"\n") || strings.Contains(ru, "### "+s.En+"\n") {
			t.Errorf("Russian template: heading of %s", s.Key)
		}
	}
}

// spec: HO-2
func TestHO2BlocksAndTheNewest(t *testing.T) {
	full := fill(Template(snapshot.English, now), "done")
	older := fill(Template(snapshot.English, now.Add(-time.Hour)), "old")
	text := "# Session state\n\nnotes\n\n" + full + "\n## Notes after\n### TASK\nnot in a block\n\n" + older +
		"\n```md\n## HANDOFF 2030-01-01T00:00:00Z\n```\n"
	blocks := Parse([]byte(text))
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2 (a heading inside a code fence is no block): %+v", len(blocks), blocks)
	}
	if blocks[0].Line != 5 || !blocks[0].Complete() {
		t.Errorf("first block %+v, want line 5, complete", blocks[0])
	}
	// The older block, written later in the file, has a fenced heading in
	// its last section: still one block.
	if n := Newest(blocks); n == nil || !n.Time.Equal(now) {
		t.Errorf("newest %+v, want the one dated %s", n, now)
	}
	if Newest(nil) != nil {
		t.Error("Newest(nil) is not nil")
	}
	undated := Parse([]byte("## HANDOFF\n### TASK\nx\n"))
	if n := Newest(append(undated, blocks...)); !n.Time.Equal(now) {
		t.Error("an undated block beat a dated one")
	}
	// Russian headings, lower case, a colon, another apostrophe, Е for Ё
	// and CRLF line ends.
	mixed := "\uFEFF## HANDOFF 2026-12-01 10:22 UTC\r\n### задача:\r\nx\r\n### Current State\r\nx\r\n### next step\r\nx\r\n" +
		"### РЕШЕНИЯ ПОЛЬЗОВАТЕЛЯ\r\nx\r\n### ЖДЕМ\r\nnone\r\n### НЕ ПРОВЕРЕНО\r\nx\r\n### DON’T\r\nx\r\n### RULED OUT\r\nx\r\n### KEY RESULTS\r\nx\r\n"
	m := Parse([]byte(mixed))
	if len(m) != 1 || !m[0].Complete() || !m[0].Time.Equal(time.Date(2026, 12, 1, 10, 22, 0, 0, time.UTC)) {
		t.Errorf("mixed block %+v, want complete, dated 10:22 UTC", m)
	}
}

// spec: HO-3
func TestHO3FilledSections(t *testing.T) {
	tpl := Template(snapshot.English, now)
	cases := []struct {
		name    string
		text    string
		missing []string
		empty   []string
	}{
		{"hints left in place are not filled", tpl, nil, keys()},
		{"none is filled", fill(tpl, "none"), nil, nil},
		{"a comment beside text still leaves text", fill(tpl, "<!-- hint --> real"), nil, nil},
		{"a section left out is missing",
			strings.Replace(fill(tpl, "x"), "### DON'T\nx\n", "", 1), []string{"dont"}, nil},
		{"a blank section is empty",
			strings.Replace(fill(tpl, "x"), "### NEXT STEP\nx\n", "### NEXT STEP\n\n   \n", 1), nil, []string{"next"}},
		{"an unclosed comment hides the rest",
			strings.Replace(fill(tpl, "x"), "### TASK\nx\n", "### TASK\n<!-- x\n", 1), nil, []string{"task"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := Parse([]byte(tc.text))[0]
			if !slices.Equal(b.Missing, tc.missing) || !slices.Equal(b.Empty, tc.empty) {
				t.Errorf("missing %v empty %v, want %v %v", b.Missing, b.Empty, tc.missing, tc.empty)
			}
			if b.Complete() != (tc.missing == nil && tc.empty == nil) {
				t.Errorf("complete %v", b.Complete())
			}
		})
	}
}

// spec: HO-3
// The NEXT STEP text is kept with the block: comments out, blanks trimmed,
// cut at NextChars; a section that is not filled keeps none.
func TestHO3NextStep(t *testing.T) {
	tpl := Template(snapshot.English, now)
	withNext := func(body string) string {
		return strings.Replace(fill(tpl, "x"), "### NEXT STEP\nx\n", "### NEXT STEP\n"+body+"\n", 1)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"text", "Run `go test ./snapshot/` and fix TestRotate.", "Run `go test ./snapshot/` and fix TestRotate."},
		{"comments out, blanks trimmed", "<!-- the first action -->\n\n  rerun the suite  \n\n", "rerun the suite"},
		{"several lines kept", "1. rebase\n2. push", "1. rebase\n2. push"},
		{"empty", "<!-- hint only -->", ""},
		{"cut", strings.Repeat("ж", NextChars+5), strings.Repeat("ж", NextChars) + " […]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Parse([]byte(withNext(tc.body)))[0]
			if b.Next != tc.want {
				t.Errorf("Next = %q, want %q", b.Next, tc.want)
			}
		})
	}
}

// spec: HO-4
func TestHO4Problems(t *testing.T) {
	done := Parse([]byte(fill(Template(snapshot.English, now), "none")))[0]
	partial := Parse([]byte(strings.Replace(Template(snapshot.English, now), "### DON'T\n", "", 1)))[0]
	undated := Parse([]byte(strings.Replace(fill(Template(snapshot.English, now), "x"), "2026-12-01T10:22:05Z", "soon", 1)))[0]
	cases := []struct {
		name  string
		b     *Block
		since time.Time
		now   time.Time
		want  []string // substrings, one per problem
	}{
		{"complete, after the crossing", &done, now.Add(-time.Minute), now.Add(time.Minute), nil},
		{"complete, no crossing", &done, time.Time{}, now, nil},
		{"the crossing's own second counts", &done, now, now, nil},
		{"a crossing later in the block's second", &done, now.Add(900 * time.Millisecond), now.Add(time.Second), nil},
		{"before the crossing", &done, now.Add(time.Second), now.Add(time.Minute), []string{"before the handoff threshold was crossed at 2026-12-01T10:22:06Z"}},
		{"in the future", &done, time.Time{}, now.Add(-FutureSlack - time.Second), []string{"later than the clock"}},
		{"no block", nil, time.Time{}, now, []string{"no handoff block"}},
		{"undated", &undated, time.Time{}, now, []string{`the heading "HANDOFF soon" has no date`}},
		{"template as printed", &partial, time.Time{}, now, []string{"missing: DON'T", "not filled: TASK, CURRENT STATE, NEXT STEP, USER DECISIONS, WAITING ON, NOT VERIFIED, RULED OUT, KEY RESULTS"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Problems(tc.b, Since{At: tc.since, Kind: SinceCrossing}, tc.now, snapshot.English)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("problem %q, want it to hold %q", got[i], tc.want[i])
				}
			}
			if Current(tc.b, tc.since, tc.now) != (len(tc.want) == 0) {
				t.Error("Current disagrees with Problems")
			}
		})
	}
	ru := Problems(&partial, Since{}, now, snapshot.Russian)
	if len(ru) != 2 || !strings.Contains(ru[0], "НЕ ТРОГАТЬ") || !strings.Contains(ru[1], "ЗАДАЧА") {
		t.Errorf("Russian problems %q", ru)
	}
}

// spec: HO-7
func TestHO7ReadBounded(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "SESSION-STATE.md")
	if err := os.WriteFile(ok, []byte(fill(Template(snapshot.English, now), "x")), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(ok); err != nil || len(b) != 1 || !b[0].Complete() {
		t.Errorf("Read: %+v %v", b, err)
	}
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Read of a file over the limit: %v", err)
	}
	if _, err := Read(dir); err == nil {
		t.Error("Read of a folder gave no error")
	}
}

// spec: RS-4
func TestNextStepText(t *testing.T) {
	text := "# State\n\n## HANDOFF 2026-12-01T10:22:05Z\n### NEXT STEP\n<!-- the first action after the compaction -->\nRun `go test ./parser/` and fix TestParseEmpty.\n\n### TASK\nnone\n"
	blocks := Parse([]byte(text))
	if len(blocks) != 1 {
		t.Fatalf("%d blocks", len(blocks))
	}
	if got := blocks[0].Next; got != "Run `go test ./parser/` and fix TestParseEmpty." {
		t.Errorf("next step %q", got)
	}
}
