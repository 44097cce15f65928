#!/usr/bin/env node
// compact-guard's npm launcher (specs/install.md NP-2, NP-3): npm installs
// the one optional dependency @compact-guard/<platform>-<arch> that fits
// this machine, and this file runs the native binary in it.
//
// `install` first copies that binary to a folder that outlives npx's cache
// ($BIN_DIR, else ~/.local/bin, as install.sh does) and runs the copy, so
// that the hooks it registers name a file that stays. Other commands run
// that copy when it is the same binary (doctor then checks the binary the
// hooks run), else the package's.
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const pkg = `@compact-guard/${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "compact-guard.exe" : "compact-guard";

function fail(msg) {
  process.stderr.write(`compact-guard: ${msg}\n`);
  process.exit(1);
}

function packagedBinary() {
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    return fail(
      `no binary for ${process.platform}/${process.arch}: npm did not install ${pkg} ` +
        `(are optional dependencies turned off, e.g. --omit=optional?). ` +
        `Other ways to install: https://github.com/compact-guard/compact-guard#quick-start`,
    );
  }
}

function sameFile(a, b) {
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  } catch {
    return false;
  }
}

// copyOver writes src to dst through a temporary file in dst's folder and
// a rename, so that a hook running dst at that moment keeps its file.
function copyOver(src, dst) {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  const tmp = path.join(path.dirname(dst), `.compact-guard.${process.pid}${path.extname(dst)}`);
  try {
    fs.copyFileSync(src, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, dst);
  } catch (err) {
    try {
      fs.unlinkSync(tmp);
    } catch {}
    fail(`cannot write ${dst}: ${err.message}`);
  }
}

function run(bin, args) {
  const res = spawnSync(bin, args, { stdio: "inherit" });
  if (res.error) fail(`cannot run ${bin}: ${res.error.message}`);
  if (res.signal) process.kill(process.pid, res.signal);
  process.exit(res.status === null ? 1 : res.status);
}

const args = process.argv.slice(2);
const packaged = packagedBinary();
const binDir = process.env.BIN_DIR || path.join(os.homedir(), ".local", "bin");
const stable = path.join(binDir, exe);
// The sub-command is the first word that is not a flag or a global flag's value.
let sub = "";
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--dir" || args[i] === "--lang") i++;
  else if (!args[i].startsWith("-")) {
    sub = args[i];
    break;
  }
}

if (sub === "install") {
  if (!sameFile(packaged, stable)) {
    copyOver(packaged, stable);
    process.stderr.write(`compact-guard: installed the binary as ${stable}\n`);
  }
  run(stable, args);
}
run(sameFile(packaged, stable) ? stable : packaged, args);
