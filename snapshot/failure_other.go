//go:build !unix

package snapshot

import "io/fs"

// ownedByMe reports true: on Windows os.TempDir() is already the user's own
// (%LOCALAPPDATA%\Temp), closed to other users by its ACL.
func ownedByMe(fs.FileInfo) bool { return true }
