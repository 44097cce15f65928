package transcript

import "strings"

// VersionBefore reports whether client release a (x.y.z, as a transcript's
// version field or `claude --version` gives it) comes before release b.
// Each part is compared as a number; what follows the leading digits of a
// part, and the parts after it, are ignored ("2.1.76-beta" is 2.1.76).
func VersionBefore(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func versionParts(v string) []int {
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, i := 0, 0
		for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
			n = n*10 + int(f[i]-'0')
		}
		if i == 0 {
			break
		}
		out = append(out, n)
		if i < len(f) {
			break
		}
	}
	return out
}
