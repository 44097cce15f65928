package textesc

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// spec: SEC-20, SEC-21
func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		n         int
		keepTab   bool
		want      string
		wantCut   bool
		wantUnits int
	}{
		{"plain", "hello", 100, false, "hello", false, 5},
		{"C0, DEL, C1", "a\x1b[2J\x7f\u009b", 100, false, `a\x1b[2J\x7f\u009b`, false, 0},
		{"tab kept or not", "a\tb", 100, true, "a\tb", false, 3},
		{"tab escaped", "a\tb", 100, false, `a\x09b`, false, 0},
		{"zero-width and format", "a\u200bb\u2060c\u00add", 100, false, `a\u200bb\u2060c\u00add`, false, 0},
		{"tags above U+FFFF", "x\U000e0041\U000e007f", 100, false, `x\U000e0041\U000e007f`, false, 0},
		{"emoji presentation kept once", "❤\ufe0f\ufe0f", 100, false, "❤\ufe0f" + `\ufe0f`, false, 0},
		{"selector after an escape is escaped", "\u200d\ufe0f", 100, false, `\u200d\ufe0f`, false, 0},
		{"other variation selectors", "a\ufe00\U000e01ef", 100, false, `a\ufe00\U000e01ef`, false, 0},
		{"invalid UTF-8", "a\xffb", 100, false, "a\ufffdb", false, 0},
		{"cut counts UTF-16 units", "😀😀😀", 5, false, "😀😀", true, 4},
		{"cut never splits an escape", "ab\u200bc", 7, false, "ab", true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cut := Bounded(tc.in, tc.n, tc.keepTab)
			if got != tc.want || cut != tc.wantCut {
				t.Errorf("Bounded(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.wantCut)
			}
			if u := len(utf16.Encode([]rune(got))); u > tc.n || tc.wantUnits != 0 && u != tc.wantUnits {
				t.Errorf("%d UTF-16 units (limit %d, want %d)", u, tc.n, tc.wantUnits)
			}
		})
	}
}

// spec: SEC-20
func TestHidden(t *testing.T) {
	for _, r := range []rune{0, '\n', 0x1b, 0x7f, 0x85, 0x9b, 0xad, 0x34f, 0x61c, 0x115f, 0x180e, 0x200b, 0x200d, 0x2028, 0x202e, 0x2060, 0x2066, 0x3164, 0xfe0f, 0xfeff, 0xffa0, 0xe0001, 0xe0041, 0xe01ef, 0xe0fff} {
		if !Hidden(r) {
			t.Errorf("%U is not hidden", r)
		}
	}
	for _, r := range []rune{' ', 'a', 'я', '一', 0xa0, 0x3000, '😀', '❤', 0xfffd} {
		if Hidden(r) {
			t.Errorf("%U is hidden", r)
		}
	}
	if got := String("ok\u200b", false); !strings.HasSuffix(got, `\u200b`) {
		t.Errorf("String = %q", got)
	}
}
