package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFileAtomic replaces path with data so that a reader sees the old
// content or the new one, never a part of either: data goes to a hidden
// temporary file in path's folder, synced and given mode perm, which is then
// renamed over path (retried briefly on Windows, where a rename over a file
// another process holds open fails until it closes it). On an error path is
// left as it was and no temporary file remains. The folder itself is not
// synced: callers that write several files sync it once (Store.Save).
//
// It is the one atomic writer of the program: snapshots, markers, the log
// and Claude Code's settings files all go through it.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := writeTemp(filepath.Dir(path), data)
	if err != nil {
		return err
	}
	// writeTemp creates the file 0600; Windows has no such mode bits.
	if perm != 0o600 && runtime.GOOS != "windows" {
		if err := os.Chmod(tmp, perm); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := renameRetry(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
