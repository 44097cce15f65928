package handover

import (
	"io"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript"
)

// Options configures one hand-over run: postcompact's (Postcompact), or,
// within WatchOptions, watch's (Watch).
type Options struct {
	// In is the hook's stdin, Out its stdout (the client's input).
	In  io.Reader
	Out io.Writer
	// HookWarnings are problems met before the run (flags that did not
	// parse), for its log line.
	HookWarnings []string

	Dir    string
	Lang   snapshot.Lang
	MaxAge time.Duration
	// MaxChars caps a pointer's length (300 to 9000, DefaultMaxChars when
	// not set).
	MaxChars      int
	StateFileName string
	Timeout       time.Duration
	CodePage      int
	Getenv        func(string) string
	Now           func() time.Time
	// BeforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	BeforeStep func(string)
	// ClientOf tells, once the payload is read, what the hand-over needs to
	// know of the client whose hook this is; nil knows nothing of it.
	ClientOf func(hookio.Payload) Client
}

// WatchOptions configures one run of the watch hook (specs/watch.md).
type WatchOptions struct {
	Options
	Thresholds []watch.Threshold
	Window     int64
	StopGate   bool
	// AfterRead, when set, is called once the fill has been read and
	// before the state is: tests run another hook there, to interleave two
	// runs deterministically (WA-26).
	AfterRead func()
	// OwnEvent, when set, is given the events watch has no part of its
	// own for: a client handles some its own way (Gemini CLI's
	// BeforeAgent, WA-36), noting in entry what it did.
	OwnEvent func(p hookio.Payload, sid string, start time.Time, entry *hookio.Entry)
}

// Client is what the hand-over needs to know of the client whose hook
// runs, as plain data: the caller decides it from the payload and the
// environment.
type Client struct {
	// Name is the client the payload shows (snapshot SF-5 agent), when the
	// transcript's start does not tell.
	Name string
	// StandsDown, when not "", is why this run, a plugin's, gives way to a
	// settings file's (PL-26).
	StandsDown string
	// ChatWindow is take.Client's, for a snapshot taken at the compaction.
	ChatWindow func(model string) int64
	// WritesLate is take.Client's, for a snapshot taken at the compaction.
	WritesLate func(format transcript.Format) bool
	// Supersedes is take.Client's, for a snapshot taken at the compaction.
	Supersedes func(agent, event string) bool
}

// agent is the client a hook runs for: the transcript's format when its
// start decided it (TR-37), else the name the caller gave.
func (c Client) agent(f *transcript.File) string {
	if f != nil {
		if format, known := f.Format(); known {
			return string(format)
		}
	}
	return c.Name
}

// take is what the take needs to know of the client.
func (c Client) take() take.Client {
	return take.Client{Name: c.Name, ChatWindow: c.ChatWindow, WritesLate: c.WritesLate, Supersedes: c.Supersedes}
}

// Defaults of the hand-over's options, and of postcompact's and watch's
// flags. DefaultTimeout bounds watch's run too: it reads the transcript
// backwards only as far as the newest response, so it is reached only on
// a stuck file system.
const (
	DefaultMaxAge   = 30 * time.Minute
	DefaultMaxChars = 4000
	DefaultTimeout  = 5 * time.Second
)

// Bounds of MaxChars: below 300 not even the snapshot's path fits, and
// Claude Code spills context over 10,000 characters to a file.
const (
	minMaxChars = 300
	maxMaxChars = 9000
)

func (o *Options) client(p hookio.Payload) Client {
	if o.ClientOf == nil {
		return Client{}
	}
	return o.ClientOf(p)
}

func (o *Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

// EffectiveTimeout is Timeout, DefaultTimeout when not set.
func (o *Options) EffectiveTimeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o *Options) maxAge() time.Duration {
	if o.MaxAge <= 0 {
		return DefaultMaxAge
	}
	return o.MaxAge
}

// EffectiveMaxChars is MaxChars within its bounds, DefaultMaxChars when
// not set.
func (o *Options) EffectiveMaxChars() int {
	switch {
	case o.MaxChars <= 0:
		return DefaultMaxChars
	case o.MaxChars < minMaxChars:
		return minMaxChars
	case o.MaxChars > maxMaxChars:
		return maxMaxChars
	}
	return o.MaxChars
}

// EffectiveStateFileName is StateFileName, take.DefaultStateFileName when
// not set.
func (o *Options) EffectiveStateFileName() string {
	if o.StateFileName == "" {
		return take.DefaultStateFileName
	}
	return o.StateFileName
}
