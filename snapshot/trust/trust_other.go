//go:build !unix && !windows

package trust

import (
	"io/fs"
	"os"
)

// ownerOfFile and ownerOfPath report this user: these systems (plan9,
// wasm) have no owner compact-guard can compare with.
func ownerOfFile(_ *os.File, _ fs.FileInfo) owner { return owner{mine: true, who: "this user"} }

func ownerOfPath(_ string, _ fs.FileInfo) owner { return owner{mine: true, who: "this user"} }
