// Package handover is what the hooks after a compaction hand the session:
// postcompact's run (Postcompact) selects the snapshot of the compaction
// that just happened (or takes it, when none was taken), writes its pointer
// or precompact's failure notice and records the delivery, and at
// PostCompact records the compaction and the residue; watch's run (Watch)
// says when a planned compaction is due, hands over a pointer that did not
// reach the model (the late pointer) and the residue, once. What it needs
// to know of the client comes as data (Client), from the caller.
package handover
