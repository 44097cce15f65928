package settings

import (
	"testing"

	"github.com/rogpeppe/go-internal/diff"
)

// spec: IN-11
// TestUnifiedDiff pins the format --dry-run prints: the Go tools' anchored
// unified diff, three lines of context.
func TestUnifiedDiff(t *testing.T) {
	a := []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n")
	b := []byte("1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n")
	want := `diff a b
--- a
+++ b
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -10,3 +10,4 @@
 10
 11
 12
+13
`
	if got := string(diff.Diff("a", a, "b", b)); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if diff.Diff("a", a, "b", a) != nil {
		t.Error("diff of equal texts")
	}
}
