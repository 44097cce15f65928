package snapshot

import (
	"strings"
	"time"
)

// MaxAhead is how far ahead of the clock the time in a snapshot name may be
// and still count for what it says (SF-69): further ahead, a clock that was
// once ahead wrote it, and its time says nothing about when it was taken.
const MaxAhead = time.Minute

// Ahead reports whether a snapshot name's time t lies more than ahead (a
// non-positive ahead: MaxAhead) ahead of now (SF-69).
func Ahead(t, now time.Time, ahead time.Duration) bool {
	if ahead <= 0 {
		ahead = MaxAhead
	}
	return t.Sub(now) > ahead
}

// NewestFirst orders snapshot names as every reader lists them, newest
// first by the clock (SF-37, SF-69): names within ahead of now (MaxAhead
// when ahead is not positive) by their time, newest first, then by suffix;
// after them the names dated further ahead, nearest to the clock first, so
// that a folder a clock once ahead filled never makes a real snapshot look
// older than those. It returns a negative number when a comes first.
func NewestFirst(a, b Name, now time.Time, ahead time.Duration) int {
	aAhead, bAhead := Ahead(a.Time, now, ahead), Ahead(b.Time, now, ahead)
	switch {
	case aAhead != bAhead:
		if aAhead {
			return 1
		}
		return -1
	case !a.Time.Equal(b.Time):
		if a.Time.After(b.Time) != aAhead {
			return -1
		}
		return 1
	case a.Suffix != b.Suffix:
		if a.Suffix > b.Suffix {
			return -1
		}
		return 1
	}
	return 0
}

// NameTimeLayout is the UTC time inside a snapshot name.
const NameTimeLayout = "20060102-150405"

// NamePrefix starts every snapshot name.
const NamePrefix = "snap_"

// SID8 is the short session id used in file names: the first 8 characters of
// the session id after keeping only [A-Za-z0-9-]. An id with none of those
// characters gives "nosessid" so that a name can always be formed.
func SID8(sessionID string) string {
	var b strings.Builder
	for _, r := range sessionID {
		if r < 0x80 && (r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
			if b.Len() == 8 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "nosessid"
	}
	return b.String()
}

// BaseName is the base name (no extension) of a snapshot taken at t for a
// session: snap_<YYYYmmdd-HHMMSS>_<sid8>, time in UTC. suffix > 0 adds
// "_<suffix>" for a second snapshot of the same session in the same second
// (an underscore, because a short sid8 may itself hold "-").
func BaseName(t time.Time, sessionID string, suffix int) string {
	n := NamePrefix + t.UTC().Format(NameTimeLayout) + "_" + SID8(sessionID)
	if suffix > 0 {
		n += "_" + itoa(suffix)
	}
	return n
}

// Name is a parsed snapshot base name.
type Name struct {
	Time   time.Time
	SID8   string
	Suffix int
}

// ParseName parses a snapshot base name (without .md or .json). It reports
// false for anything that is not exactly a snapshot name.
func ParseName(base string) (Name, bool) {
	// snap_<8 digits>-<6 digits>_<1-8 of [A-Za-z0-9-]>[_<1-9999, no leading 0>],
	// read byte by byte: a regular expression would be compiled by every
	// process that links this package (PF-16).
	rest, ok := strings.CutPrefix(base, NamePrefix)
	if !ok || len(rest) < len(NameTimeLayout)+2 || rest[len(NameTimeLayout)] != '_' {
		return Name{}, false
	}
	stamp := rest[:len(NameTimeLayout)]
	for i := range len(stamp) {
		if c := stamp[i]; i == 8 && c != '-' || i != 8 && (c < '0' || c > '9') {
			return Name{}, false
		}
	}
	t, err := time.Parse(NameTimeLayout, stamp)
	if err != nil {
		return Name{}, false
	}
	sid8, suffix, hasSuffix := strings.Cut(rest[len(NameTimeLayout)+1:], "_")
	if len(sid8) < 1 || len(sid8) > 8 || strings.IndexFunc(sid8, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) >= 0 {
		return Name{}, false
	}
	n := Name{Time: t.UTC(), SID8: sid8}
	if hasSuffix {
		if len(suffix) < 1 || len(suffix) > 4 || suffix[0] == '0' {
			return Name{}, false
		}
		for _, c := range []byte(suffix) {
			if c < '0' || c > '9' {
				return Name{}, false
			}
			n.Suffix = n.Suffix*10 + int(c-'0')
		}
	}
	return n, true
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}
