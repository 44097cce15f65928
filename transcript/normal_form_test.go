package transcript

import (
	"testing"
)

// One path written in two Unicode normal forms (macOS hands out the
// decomposed form, NFD; people and editors type the composed one, NFC) is
// one file in the list, keeping the spelling first seen, also when the first
// spelling comes from an earlier snapshot (the chain's seed).
// spec: RB-25, TR-19
func TestEditedFileInTwoNormalForms(t *testing.T) {
	const nfc, nfd = "/p/caf\u00e9/r\u00e9sum\u00e9.go", "/p/cafe\u0301/re\u0301sume\u0301.go"
	f := extract(
		call(1, "t1", "Write", obj{"file_path": nfc}), result(2, "t1", "ok", false, nil),
		call(3, "t2", "Edit", obj{"file_path": nfd}), result(4, "t2", "ok", false, nil),
		call(5, "t3", "Edit", obj{"file_path": "/p/other.go"}), result(6, "t3", "ok", false, nil),
	)
	if len(f.Files) != 2 {
		t.Fatalf("files = %+v, want 2: the NFC and NFD spellings are one file", f.Files)
	}
	if g := f.Files[1]; g.Path != nfc || g.Edits != 2 || g.LastTool != "Edit" {
		t.Errorf("merged file = %+v, want %q with 2 edits, last Edit", g, nfc)
	}

	x := NewExtractor(&Facts{Files: []FileEdit{{Path: nfd, Edits: 3, LastTool: "Write"}}})
	x.Feed([]byte(call(7, "t4", "Edit", obj{"file_path": nfc})))
	x.Feed([]byte(result(8, "t4", "ok", false, nil)))
	if got := x.Facts().Files; len(got) != 1 || got[0].Path != nfd || got[0].Edits != 4 {
		t.Errorf("seeded files = %+v, want %q with 4 edits", got, nfd)
	}
}
