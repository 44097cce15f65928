package main

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"

	"github.com/spf13/cobra"
)

// usage is what packaging says when it is run without a subcommand.
const usage = "usage: packaging snapshot [--dist DIR] [--version V] | packaging assemble --version V [--dist DIR] [--mtime UNIX] [--base-url URL] | packaging check [--dist DIR] | packaging manifests [--dist DIR] [--ruby PATH] | packaging marketplace"

// run runs packaging with args, writing what it made to stdout. Every error
// is main's exit 1, whatever the subcommand; --help is exit 0.
func run(args []string, stdout io.Writer) error {
	root := newCmdRoot(stdout)
	root.SetArgs(args)
	return root.Execute()
}

// newCmdRoot is packaging and its subcommands, wired as cmd wires
// compact-guard's: one command per subcommand, its options and its run.
func newCmdRoot(stdout io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "packaging",
		Short: "Make and check compact-guard's release packages",
		Long: `packaging makes the release's Claude Code plugin, marketplace file and npm
packages from the binaries goreleaser built, builds the whole release without
goreleaser, and checks what a build made (specs/install.md, "Release
artifacts").

Exit status: 0 done, 1 anything failed or was wrong on the command line.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q", args[0])
			}
			return errors.New(usage)
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		newCmdSnapshot(stdout, nil),
		newCmdAssemble(stdout, nil),
		newCmdCheck(stdout, nil),
		newCmdManifests(stdout, nil),
		newCmdMarketplace(stdout, nil),
	)
	return root
}

// SnapshotOptions are the inputs of "packaging snapshot".
type SnapshotOptions struct {
	Out     io.Writer
	Dist    string
	Version string
}

func newCmdSnapshot(stdout io.Writer, runF func(*SnapshotOptions) error) *cobra.Command {
	opts := &SnapshotOptions{Out: stdout}
	c := &cobra.Command{
		Use:   "snapshot [--dist DIR] [--version V]",
		Short: "Build the whole release into a folder, without goreleaser",
		Long: `Build what goreleaser's snapshot release makes — the six binaries, their
archives, the plugin, marketplace and npm packages, checksums.txt and
metadata.json — with the go command alone. The folder is emptied
first. The version defaults to goreleaser's snapshot version from git.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return snapshotRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Dist, "dist", "dist", "the folder to build into (emptied first)")
	c.Flags().StringVar(&opts.Version, "version", "", "the version (default: goreleaser's snapshot version from git)")
	return c
}

func snapshotRun(opts *SnapshotOptions) error {
	b, err := newSnapshotBuild(opts.Dist, opts.Version)
	if err != nil {
		return err
	}
	return b.run(opts.Out)
}

// AssembleOptions are the inputs of "packaging assemble".
type AssembleOptions struct {
	Out     io.Writer
	Dist    string
	Version string
	// Mtime is --mtime as given: unix seconds, or empty for the epoch.
	Mtime   string
	BaseURL string
}

func newCmdAssemble(stdout io.Writer, runF func(*AssembleOptions) error) *cobra.Command {
	opts := &AssembleOptions{Out: stdout}
	c := &cobra.Command{
		Use:   "assemble --version V [--dist DIR] [--mtime UNIX] [--base-url URL]",
		Short: "Make the plugin, marketplace and npm packages from goreleaser's binaries",
		Long: `Make the Claude Code plugin archive, its marketplace file, the local
marketplace folder and the npm packages in goreleaser's dist folder, once
all six binaries are built there; goreleaser runs it from
.goreleaser.yaml. Every file is stamped with --mtime, so the same binaries
give the same bytes.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return assembleRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Dist, "dist", ".", "goreleaser's dist folder")
	c.Flags().StringVar(&opts.Version, "version", "", "the release version, without v")
	c.Flags().StringVar(&opts.Mtime, "mtime", "", "unix time stamped on every file (the commit's)")
	c.Flags().StringVar(&opts.BaseURL, "base-url", "", "where the release's files are downloaded from (default: the GitHub release of the version)")
	return c
}

func assembleRun(opts *AssembleOptions) error {
	a := assembly{Dist: opts.Dist, Version: opts.Version, BaseURL: opts.BaseURL}
	if a.Version == "" {
		return errors.New("assemble: --version is required")
	}
	if a.BaseURL == "" {
		a.BaseURL = repoURL + "/releases/download/v" + a.Version
	}
	a.Mtime = time.Unix(0, 0).UTC()
	if opts.Mtime != "" {
		sec, err := strconv.ParseInt(opts.Mtime, 10, 64)
		if err != nil {
			return fmt.Errorf("assemble: --mtime: %v", err)
		}
		a.Mtime = time.Unix(sec, 0).UTC()
	}
	_, err := a.run(opts.Out)
	return err
}

// CheckOptions are the inputs of "packaging check".
type CheckOptions struct {
	Out  io.Writer
	Dist string
}

func newCmdCheck(stdout io.Writer, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{Out: stdout}
	c := &cobra.Command{
		Use:   "check [--dist DIR]",
		Short: "Check a release build's files",
		Long: `Check what a release build wrote into its dist folder: every artifact is
there and listed in checksums.txt with its digest and nothing else is listed,
each binary was built as the release says (target, -trimpath, CGO off, no
symbols, the version stamped), and the binary for this machine reports the
version. It prints the artifacts with their sizes; .ci/run runs it.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return checkDist(opts.Dist, opts.Out)
		},
	}
	c.Flags().StringVar(&opts.Dist, "dist", "dist", "goreleaser's dist folder")
	return c
}

// ManifestsOptions are the inputs of "packaging manifests".
type ManifestsOptions struct {
	Out  io.Writer
	Dist string
	// Ruby checks the cask's syntax; empty is the ruby on PATH, if any.
	Ruby string
}

func newCmdManifests(stdout io.Writer, runF func(*ManifestsOptions) error) *cobra.Command {
	opts := &ManifestsOptions{Out: stdout}
	c := &cobra.Command{
		Use:   "manifests [--dist DIR] [--ruby PATH]",
		Short: "Check goreleaser's Homebrew cask, Scoop and WinGet manifests",
		Long: `Check the Homebrew cask, the Scoop manifest and the WinGet manifests that
goreleaser generated in its dist folder: the rules of each format a
registry rejects on, and every download an archive of this release with the
sha256 checksums.txt gives it. .ci/release-check runs it.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return manifestsRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Dist, "dist", "dist", "goreleaser's dist folder")
	c.Flags().StringVar(&opts.Ruby, "ruby", "", "the ruby that checks the cask's syntax (default: ruby on PATH)")
	return c
}

func manifestsRun(opts *ManifestsOptions) error {
	ruby := opts.Ruby
	if ruby == "" {
		ruby, _ = exec.LookPath("ruby")
	}
	return checkManifests(opts.Dist, ruby, opts.Out)
}

// MarketplaceOptions are the inputs of "packaging marketplace".
type MarketplaceOptions struct {
	Out io.Writer
}

func newCmdMarketplace(stdout io.Writer, runF func(*MarketplaceOptions) error) *cobra.Command {
	opts := &MarketplaceOptions{Out: stdout}
	return &cobra.Command{
		Use:   "marketplace",
		Short: "Print the repository's .claude-plugin/marketplace.json",
		Long: `Print the marketplace file the repository keeps in .claude-plugin/: the
plugin as the newest release's archive, without a sum or a version, so it
follows every release.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return marketplaceRun(opts)
		},
	}
}

func marketplaceRun(opts *MarketplaceOptions) error {
	b, err := marketplaceJSON(latestPluginURL, "", "")
	if err != nil {
		return err
	}
	_, err = opts.Out.Write(b)
	return err
}
