package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// spec: SF-10
func TestRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"", 3, "", false},
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"пример", 2, "пр", true},
		{"a😀b", 2, "a😀", true},
		{"abc", 0, "", true},
		{"", 0, "", false},
		{"ab\xffcd", 3, "ab\xff", true},
	} {
		got, cut := Runes(tc.s, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Runes(%q, %d) = %q, %v; want %q, %v", tc.s, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

// spec: SF-10
func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aяb", 2, "a", true}, // я is 2 bytes: never half of it
		{"aяb", 3, "aя", true},
		{"a😀", 4, "a", true},
		{"abc", 0, "", true},
		// Stray continuation bytes are cut at n, not walked back to nothing.
		{strings.Repeat("\x80", 10), 5, strings.Repeat("\x80", 5), true},
	} {
		got, cut := Bytes(tc.s, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Bytes(%q, %d) = %q, %v; want %q, %v", tc.s, tc.n, got, cut, tc.want, tc.cut)
		}
	}
	for n := 0; n < 12; n++ {
		if got, _ := Bytes("яя😀я", n); !utf8.ValidString(got) || len(got) > n {
			t.Errorf("Bytes(яя😀я, %d) = %q: not valid or longer than %d", n, got, n)
		}
	}
}

// spec: SF-10
func TestMarked(t *testing.T) {
	if got := Marked(Runes("abcdef", 3)); got != "abc"+Marker {
		t.Errorf("Marked(Runes(abcdef, 3)) = %q", got)
	}
	if got := Marked(Runes("abc", 3)); got != "abc" {
		t.Errorf("Marked(Runes(abc, 3)) = %q, want no marker", got)
	}
	if Marker != " […]" {
		t.Errorf("Marker = %q, the spec says \" […]\"", Marker)
	}
}

// BenchmarkRunesLong shows that a cut walks only what it keeps: the time
// does not grow with the text.
func BenchmarkRunesLong(b *testing.B) {
	s := strings.Repeat("я", 1<<20)
	for b.Loop() {
		Runes(s, 500)
	}
}

// spec: RB-20
func TestUTF16(t *testing.T) {
	for _, tc := range []struct {
		in    string
		n     int
		want  string
		cut   bool
		units int
	}{
		{"abc", 3, "abc", false, 3},
		{"abc", 2, "ab", true, 3},
		{"😀a", 2, "😀", true, 3},
		{"😀a", 1, "", true, 3},
		{"я😀", 2, "я", true, 3},
		{"a\xffb", 3, "a\xffb", false, 3},
	} {
		got, cut := UTF16(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("UTF16(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
		if u := UTF16Len(tc.in); u != tc.units {
			t.Errorf("UTF16Len(%q) = %d, want %d", tc.in, u, tc.units)
		}
	}
}
