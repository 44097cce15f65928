//go:build unix

package trust

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// ownerOfFile reads the owner of an open file from its fstat.
func ownerOfFile(_ *os.File, fi fs.FileInfo) owner { return ownerOfPath("", fi) }

// ownerOfPath reads the owner from a stat: the uid, compared with the
// effective uid, which owns what this process creates.
func ownerOfPath(_ string, fi fs.FileInfo) owner {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{who: "an unknown user"}
	}
	uid := int(st.Uid)
	return owner{mine: uid == os.Geteuid(), root: uid == 0, who: "uid " + strconv.Itoa(uid)}
}
