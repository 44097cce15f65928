package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// DeliverySuffix ends the name of the file, next to a snapshot's .json and
// .md, that records the SessionStart(compact) run that pointed a session to
// the snapshot (SF-53). It ends neither in .json nor in .md, so that no
// reader of snapshots takes it for one.
const DeliverySuffix = ".delivered"

// maxDeliveryBytes bounds a delivery file that ReadDelivery reads.
const maxDeliveryBytes = 4 << 10

// Delivery says that a compaction hook handed a snapshot out: when, from
// which event, and how far the session's transcript reached at that moment.
// Selection reads it back: a compaction boundary written after TranscriptSize
// means the compaction the snapshot was handed to is over, so the snapshot
// cannot be the one of a later compaction (specs/selectsnap.md).
type Delivery struct {
	SessionID string    `json:"session_id"`
	At        time.Time `json:"at"`
	// Event is the hook event that delivered it ("SessionStart").
	Event string `json:"event"`
	// TranscriptSize is the transcript's size when the hook ran; 0 when the
	// transcript could not be read.
	TranscriptSize int64 `json:"transcript_size"`
}

// DeliveryPath is where the delivery of the snapshot named name in dir is
// recorded.
func DeliveryPath(dir, name string) string { return filepath.Join(dir, name+DeliverySuffix) }

// WriteDelivery records d for the snapshot named name in dir, atomically and
// readable by the user only, replacing an earlier record. The snapshot must
// still exist: a snapshot pruned meanwhile gets no stray file.
func WriteDelivery(dir, name string, d Delivery) error {
	if _, ok := ParseName(name); !ok {
		return fmt.Errorf("record delivery: %q is not a snapshot name", name)
	}
	if _, err := os.Lstat(filepath.Join(dir, name+".json")); err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	d.At = d.At.UTC()
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	if err := WriteFileAtomic(DeliveryPath(dir, name), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record delivery: %w", err)
	}
	return nil
}

// ReadDelivery returns the delivery recorded for the snapshot named name in
// dir; nil, nil when there is none. A file that is not a regular file, is
// not trusted (SEC-13: the error wraps trust.ErrUntrusted), is too large, does not
// decode or names another session is an error.
func ReadDelivery(dir, name, sessionID string) (*Delivery, error) {
	var d Delivery
	err := readJSONRecord(DeliveryPath(dir, name), maxDeliveryBytes, "delivery record of "+name, &d)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if d.SessionID != sessionID {
		return nil, fmt.Errorf("delivery record of %s names another session", name)
	}
	return &d, nil
}
