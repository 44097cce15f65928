// Package hookio is a hook's input and output: the payload a client writes
// to stdin, decoded whatever its encoding (payload.go); the JSON a hook
// prints for the client (output.go); the phases a hook's deadline is cut
// into and the steps bounded by them (deadline.go); and the line each run
// appends to compact-guard.log (log.go). The hook flows (take, handover)
// and cmd's hook commands share it.
package hookio
