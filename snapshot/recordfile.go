package snapshot

import (
	"encoding/json"
	"fmt"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// readJSONRecord is the one reader of the JSON files compact-guard writes
// and reads back — the snapshot records and latest.json, and the sidecar
// records beside them: the delivery (.delivered), the residue (.residue)
// and the failure markers. It decodes the file at path into v only when it
// is a regular file that trust accepts (SEC-13: this user's, that no one
// else can write, not reached through a symlink) and at most max bytes.
//
// Errors of the file are trust's, as they are (they name the path; one
// wraps fs.ErrNotExist when there is no file, for the callers to which no
// record is no error). A file that does not decode gives json's error
// wrapped with what, which names the record for the log ("delivery record
// of <name>"); an empty what leaves it bare, for a caller that names the
// file in every error it returns.
func readJSONRecord(path string, max int64, what string, v any) error {
	data, err := trust.ReadTrusted(path, max)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		if what == "" {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
