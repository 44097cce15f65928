#!/bin/sh
# install.sh: build compact-guard from this source tree and register its
# hooks with Claude Code. Safe to run again: the binary is replaced and the
# settings are left as they are when the hooks are already there.
#
#   ./install.sh                 build into ${BIN_DIR:-$HOME/.local/bin}, register
#                                the hooks in ~/.claude/settings.json (or
#                                $CLAUDE_CONFIG_DIR/settings.json), run doctor
#   ./install.sh --project       register in ./.claude/settings.json instead
#                                (shared with the repository; run it in the
#                                project folder)
#   ./install.sh --local         register in ./.claude/settings.local.json
#                                (this project, only you)
#   ./install.sh --uninstall     remove the hooks (with --project or --local:
#                                from that file); the binary, the snapshots,
#                                the log and the state folder are kept, and
#                                the commands that remove them are printed
#
# Environment: BIN_DIR (where the binary goes), GO (the go command).
set -eu

usage() {
	awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

die() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

scope=
uninstall=0
for arg in "$@"; do
	case $arg in
	--project | --local)
		if [ -n "$scope" ] && [ "$scope" != "${arg#--}" ]; then
			printf 'install.sh: --project and --local cannot be used together\n' >&2
			exit 2
		fi
		scope=${arg#--}
		;;
	--uninstall) uninstall=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		printf 'install.sh: unknown option %s\n' "$arg" >&2
		usage >&2
		exit 2
		;;
	esac
done

src_dir=$(cd "$(dirname "$0")" && pwd)
bin_dir=${BIN_DIR:-$HOME/.local/bin}
go_cmd=${GO:-go}

set --
if [ -n "$scope" ]; then
	set -- --scope "$scope"
fi

if [ "$uninstall" = 1 ]; then
	bin=
	for b in "$bin_dir/compact-guard" "$bin_dir/compact-guard.exe"; do
		if [ -x "$b" ]; then
			bin=$b
		fi
	done
	[ -n "$bin" ] || die "no compact-guard in $bin_dir (set BIN_DIR to where it is)"
	"$bin" uninstall "$@"
	# What stays, and the commands that remove it all (IN-16): the state
	# folder is the one above the snapshot folder; install's backups are
	# always in the default one (<XDG state home>/compact-guard), which
	# differs when COMPACT_GUARD_DIR moved the snapshots.
	snaps=$("$bin" dir)
	state=$(dirname "$snaps")
	case $(uname -s) in
	Darwin) default_state="$HOME/Library/Application Support/compact-guard" ;;
	*) default_state="${XDG_STATE_HOME:-$HOME/.local/state}/compact-guard" ;;
	esac
	printf '\nKept: the binary, the snapshots, the log and compact-guard'"'"'s state (install'"'"'s backups;\n'
	printf 'watch/ while another scope or client still registers compact-guard). To remove them all, once\n'
	printf 'no other scope or client uses compact-guard:\n'
	printf '  rm "%s"\n' "$bin"
	printf '  rm -rf "%s"\n' "$snaps"
	printf '  rm -f "%s"\n' "$state/compact-guard.log"
	printf '  rm -rf "%s" "%s" "%s"\n' "$state/failures" "$state/watch" "$default_state/backups"
	printf '  rmdir "%s"\n' "$state"
	if [ "$default_state" != "$state" ]; then
		printf '  rmdir "%s"\n' "$default_state"
	fi
	exit 0
fi

# Go, at least the version go.mod asks for.
command -v "$go_cmd" >/dev/null 2>&1 || die "Go is not installed (https://go.dev/dl/); set GO if it is not on PATH"
need=$(sed -n 's/^go[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' "$src_dir/go.mod")
[ -n "$need" ] || die "cannot read the Go version from $src_dir/go.mod"
have=$(cd "$src_dir" && "$go_cmd" env GOVERSION) || die "'$go_cmd env GOVERSION' failed"
have_num=$(printf '%s\n' "$have" | sed 's/^go//; s/[^0-9.].*//')
if [ -z "$have_num" ]; then
	printf 'install.sh: cannot tell the version of %s (%s); trying anyway\n' "$go_cmd" "$have" >&2
elif ! awk -v a="$have_num" -v b="$need" 'BEGIN {
	n = split(a, x, "."); m = split(b, y, ".")
	for (i = 1; i <= (n > m ? n : m); i++) {
		if (x[i] + 0 > y[i] + 0) exit 0
		if (x[i] + 0 < y[i] + 0) exit 1
	}
	exit 0
}'; then
	die "Go $need or newer is needed, found $have (https://go.dev/dl/)"
fi

# Build next to the old binary and rename over it, so that a hook running
# right now keeps its file. As the release builds it (specs/performance.md,
# PF-15): without cgo, a static program whose start skips the dynamic loader;
# stripped.
exe=$(cd "$src_dir" && "$go_cmd" env GOEXE)
bin="$bin_dir/compact-guard$exe"
mkdir -p "$bin_dir"
version=$(git -C "$src_dir" describe --tags --always --dirty 2>/dev/null || echo dev)
tmp="$bin_dir/.compact-guard.$$$exe"
trap 'rm -f "$tmp"' EXIT
(cd "$src_dir" && CGO_ENABLED=0 "$go_cmd" build -trimpath \
	-ldflags "-s -w -X github.com/compact-guard/compact-guard/cmd.Version=$version" \
	-o "$tmp" .) || die "build failed"
mv -f "$tmp" "$bin"
trap - EXIT
printf 'built %s (%s)\n' "$bin" "$version"

# install ends by advising to run doctor, which this script does below.
status=0
out=$("$bin" install "$@") || status=$?
if [ -n "$out" ]; then
	printf '%s\n' "$out" | sed '/^check the setup with: compact-guard doctor$/d'
fi
[ "$status" = 0 ] || exit "$status"

case ":$PATH:" in
*":$bin_dir:"*) ;;
*)
	# shellcheck disable=SC2016 # $PATH is meant literally, for ~/.profile
	printf '\nwarning: %s is not on PATH; add it, e.g. in ~/.profile:\n  export PATH="%s:$PATH"\n(the hooks use the absolute path and work either way)\n' "$bin_dir" "$bin_dir" >&2
	;;
esac

printf '\nchecking the setup (compact-guard doctor):\n'
"$bin" doctor
