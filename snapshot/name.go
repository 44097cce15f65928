package snapshot

import (
	"regexp"
	"strings"
	"time"
)

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

var nameRE = regexp.MustCompile(`^snap_(\d{8}-\d{6})_([A-Za-z0-9-]{1,8})(?:_([1-9]\d{0,3}))?$`)

// Name is a parsed snapshot base name.
type Name struct {
	Time   time.Time
	SID8   string
	Suffix int
}

// ParseName parses a snapshot base name (without .md or .json). It reports
// false for anything that is not exactly a snapshot name.
func ParseName(base string) (Name, bool) {
	m := nameRE.FindStringSubmatch(base)
	if m == nil {
		return Name{}, false
	}
	t, err := time.Parse(NameTimeLayout, m[1])
	if err != nil {
		return Name{}, false
	}
	n := Name{Time: t.UTC(), SID8: m[2]}
	if m[3] != "" {
		for _, c := range m[3] {
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
