// Package nonblock is the one way compact-guard opens a file it has not
// checked yet: without waiting, so that a FIFO or a device put where a
// transcript, a settings file, a state file or a snapshot was expected can
// never block a hook (specs/robustness.md, specs/security.md SEC-13). It
// opens and nothing more: each caller then checks, on the opened file, that
// it is the regular file it wants. It imports nothing of compact-guard, so
// every package may use it (transcript is the lowest that does).
package nonblock
