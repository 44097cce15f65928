package cmd

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func init() { register("version", newCmdVersion) }

func newCmdVersion(ios *IO, _ *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(ios.Out, "compact-guard %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
