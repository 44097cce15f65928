// Package take is the take of a snapshot: finding the session's transcript,
// waiting for it to settle (its client writes it late), reading it chained
// from the session's earlier snapshot, reading git and the state file,
// redacting, saving, and the notes the save leaves for the hooks after it
// (the watch state's compaction and residue notes, the failure marker),
// with the summary hint precompact prints after the save. Run is
// precompact's run; Gather is the gathering postcompact uses when it takes
// the snapshot itself at SessionStart. What it needs to know of the client
// comes as data (Client), from the caller.
package take
