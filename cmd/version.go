package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register("version", newCmdVersion) }

func newCmdVersion(ios *IO, _ *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(ios.Out, "compact-guard %s (%s, %s/%s)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}

// version is Version as the release build sets it; a binary built by `go
// install github.com/compact-guard/compact-guard@vX` has no -ldflags, and
// gets the module version the go command recorded in it instead (RL-12:
// the release workflow checks that it reports the tag). A build from a
// checkout records "(devel)", and stays "dev".
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(Version, bi)
}

// versionFrom is version's rule, on the build's values.
func versionFrom(v string, bi *debug.BuildInfo) string {
	if v != "dev" || bi == nil || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return v
	}
	// v0.3.1 as the release build writes it: 0.3.1.
	return strings.TrimPrefix(bi.Main.Version, "v")
}
