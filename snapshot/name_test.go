package snapshot

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// sid8Chars is what SF-1 allows of a session id in a file name.
var sid8Chars = regexp.MustCompile(`^[A-Za-z0-9-]{1,8}$`)

// nameChars is every character a snapshot base name may hold.
var nameChars = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Name times are 4-digit years: 0000-01-01 to 9999-12-31 UTC.
var (
	nameTimeMin = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	nameTimeMax = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// nameTime maps any int64 onto a whole second a name can hold.
func nameTime(sec int64) time.Time {
	span := nameTimeMax - nameTimeMin + 1
	off := sec % span
	if off < 0 {
		off += span
	}
	return time.Unix(nameTimeMin+off, 0).UTC()
}

// spec: RB-2 (SF-1, SF-51)
func TestParseName(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 9, 5, 7, 0, time.UTC)
	accepted := []struct {
		base string
		want Name
	}{
		{"snap_20261130-090507_0f3c2a1b", Name{Time: t0, SID8: "0f3c2a1b"}},
		{"snap_20261130-090507_a-b", Name{Time: t0, SID8: "a-b"}},
		{"snap_20261130-090507_nosessid_2", Name{Time: t0, SID8: "nosessid", Suffix: 2}},
		{"snap_20261130-090507_x_9999", Name{Time: t0, SID8: "x", Suffix: 9999}},
		{"snap_00000101-000000_x", Name{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), SID8: "x"}},
	}
	for _, tc := range accepted {
		got, ok := ParseName(tc.base)
		if !ok || !got.Time.Equal(tc.want.Time) || got.SID8 != tc.want.SID8 || got.Suffix != tc.want.Suffix {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", tc.base, got, ok, tc.want)
		}
	}
	rejected := []string{
		"",
		"snap_",
		"snap_20261130-090507_",
		"snap_20261130-090507_0f3c2a1b.json",
		"snap_20261130-090507_0f3c2a1b9", // sid8 longer than 8
		"snap_20261130-090507_../etc",    // separators
		"snap_20261130-090507_a/b",       // slash
		"snap_20261130-090507_a\\b",      // backslash
		"snap_20261130-090507_a\x00b",    // NUL
		"snap_20261130-090507_ab_cd",     // suffix not a number
		"snap_20261130-090507_ab_10000",  // suffix over 4 digits
		"snap_20261330-090507_ab",        // month 13
		"snap_20260230-090507_ab",        // 30 February
		"snap_20261130-250507_ab",        // hour 25
		"snap_20261130-090560_ab",        // second 60
		"snap_２０２６1130-090507_ab",        // non-ASCII digits
		"snap_20261130-090507_ab\n",      // trailing newline
		"xsnap_20261130-090507_ab",       // prefix
		"SNAP_20261130-090507_ab",        // case
		"snap_20261130090507_ab",         // no dash in the time
		"snap_20261130-090507_абв",       // Cyrillic
		// One snapshot, one spelling: otherwise two names would parse
		// to the same snapshot.
		"snap_20261130-090507_ab_0",    // BaseName never writes suffix 0
		"snap_20261130-090507_ab_01",   // nor a leading zero
		"snap_20261130-090507_ab_0002", // nor zeros
		"snap_20261130-090507_ab_2_3",  // two suffixes
		"snap_20261130-090507_ab_-1",   // negative suffix
		"snap_20261130-090507_ab_+1",   // signed suffix
		"snap_20261130-090507_" + "🙂",  // emoji
	}
	for _, base := range rejected {
		if n, ok := ParseName(base); ok {
			t.Errorf("ParseName(%q) accepted %+v; BaseName never writes that name", base, n)
		}
	}
}

// FuzzParseName checks snapshot names both ways (RB-2): ParseName never
// panics and accepts only names BaseName writes, character for character;
// and BaseName, for any session id, any time a name can hold and any suffix
// Save can take, writes a name of [A-Za-z0-9_-] that ParseName reads back.
// spec: RB-2 (SF-1)
func FuzzParseName(f *testing.F) {
	f.Add("snap_20261130-090507_0f3c2a1b", "0f3c2a1b-1111-2222-3333-444455556666", int64(1796029507), uint16(0))
	f.Add("snap_20261130-090507_ab_3", "../../etc/passwd", int64(0), uint16(3))
	f.Add("snap_20261130-090507_ab_0", "a\\b\x00c", int64(-1), uint16(9999))
	f.Add("snap_99991231-235959_zz", "🙂🚀", int64(253402300799), uint16(10000))
	f.Add("snap_20260229-000000_x", "", int64(-62167219201), uint16(65535))
	f.Fuzz(func(t *testing.T, base, sessionID string, sec int64, suffix uint16) {
		if n, ok := ParseName(base); ok {
			if !sid8Chars.MatchString(n.SID8) {
				t.Errorf("ParseName(%q) gave sid8 %q", base, n.SID8)
			}
			if n.Time.Location() != time.UTC || n.Time.Nanosecond() != 0 {
				t.Errorf("ParseName(%q) gave time %v, want whole UTC seconds", base, n.Time)
			}
			if back := BaseName(n.Time, n.SID8, n.Suffix); back != base {
				t.Errorf("ParseName accepts %q, which BaseName writes as %q", base, back)
			}
		}

		at := nameTime(sec)
		suf := int(suffix) % (maxSuffix + 1)
		name := BaseName(at, sessionID, suf)
		if !nameChars.MatchString(name) || strings.Contains(name, "..") {
			t.Fatalf("BaseName(%v, %q, %d) = %q: unsafe characters", at, sessionID, suf, name)
		}
		sid8 := SID8(sessionID)
		if !sid8Chars.MatchString(sid8) {
			t.Fatalf("SID8(%q) = %q", sessionID, sid8)
		}
		n, ok := ParseName(name)
		if !ok {
			t.Fatalf("ParseName(BaseName(%v, %q, %d) = %q) refused it", at, sessionID, suf, name)
		}
		if !n.Time.Equal(at) || n.SID8 != sid8 || n.Suffix != suf {
			t.Fatalf("ParseName(%q) = %+v, want time %v, sid8 %q, suffix %d", name, n, at, sid8, suf)
		}
	})
}
