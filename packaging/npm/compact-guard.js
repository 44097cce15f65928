#!/usr/bin/env node
// compact-guard's npm launcher (specs/install.md NP-2, NP-3, NP-5 to NP-9):
// npm installs the one optional dependency @compact-guard/<platform>-<arch>
// that fits this machine, and this file runs the native binary in it.
//
// `install` first copies that binary to a folder that outlives npx's cache
// ($BIN_DIR, else ~/.local/bin, as install.sh does) and runs the copy, so
// that the hooks it registers name a file that stays. `install --dry-run`
// and every kind of help write nothing (NP-5). Other commands run that copy
// when it is the same binary (doctor then checks the binary the hooks run),
// else the package's.
"use strict";

const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const pkg = `@compact-guard/${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "compact-guard.exe" : "compact-guard";
const docs = "https://github.com/compact-guard/compact-guard#install";
// The platforms a release has a package for (packaging/main.go targets).
const shipped = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "win32-arm64", "win32-x64"];

function fail(msg) {
  process.stderr.write(`compact-guard: ${msg}\n`);
  process.exit(1);
}

function ownVersion() {
  try {
    return require("../package.json").version;
  } catch {
    return "";
  }
}

// optionalTurnedOff says how npm was told to leave optional dependencies
// out, from the configuration npm passes to the scripts and npx it runs.
function optionalTurnedOff() {
  const env = process.env;
  const omit = `${env.npm_config_omit || ""} ${env.NPM_CONFIG_OMIT || ""}`;
  if (/\boptional\b/.test(omit)) return "--omit=optional";
  for (const k of ["npm_config_optional", "NPM_CONFIG_OPTIONAL"]) {
    if (env[k] === "false" || env[k] === "") return `${k}=${env[k]}`;
  }
  for (const k of ["npm_config_no_optional", "NPM_CONFIG_NO_OPTIONAL"]) {
    if (env[k] === "true" || env[k] === "1") return "--no-optional";
  }
  return "";
}

// packagedBinary finds the platform package's binary, or fails with what
// actually went wrong (NP-6).
function packagedBinary() {
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {}
  const plat = `${process.platform}-${process.arch}`;
  const where = `Other ways to install: ${docs}`;
  if (!shipped.includes(plat)) {
    return fail(
      `no binary for ${process.platform}/${process.arch}: compact-guard ships binaries for ` +
        `macOS, Linux and Windows on x64 and arm64 only. With Go 1.26 or newer, build it from source. ${where}`,
    );
  }
  let pkgDir = "";
  try {
    pkgDir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {}
  if (pkgDir) {
    return fail(
      `${pkg} is installed in ${pkgDir} but holds no bin/${exe}: the package is incomplete ` +
        `(an interrupted install, or a tool that strips files). Reinstall it: npm install ${pkg}@${ownVersion()}`,
    );
  }
  const off = optionalTurnedOff();
  if (off) {
    return fail(
      `no binary for ${process.platform}/${process.arch}: optional dependencies are turned off (${off}), ` +
        `and the binary comes in the optional dependency ${pkg}. Install again without ${off}. ${where}`,
    );
  }
  return fail(
    `no binary for ${process.platform}/${process.arch}: npm did not install ${pkg}@${ownVersion()}, ` +
      `although optional dependencies are on. A package-lock.json written on another platform leaves it out, ` +
      `and so does a download that failed; run npm install ${pkg}@${ownVersion()} where compact-guard is installed, ` +
      `or clear npx's copy (the _npx folder in npm's cache, \`npm config get cache\`) and run npx again. ${where}`,
  );
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

function spawnError(bin, err) {
  if (err.code === "EACCES") {
    return `cannot run ${bin}: it is not executable (a package manager that dropped its mode?); chmod +x it, or install again`;
  }
  if (err.code === "ENOENT") return `cannot run ${bin}: it is not there any more (npm's cache cleaned?); run npx again`;
  return `cannot run ${bin}: ${err.message}`;
}

function exitLike(res, bin) {
  if (res.error) fail(spawnError(bin, res.error));
  if (res.signal) process.kill(process.pid, res.signal);
  process.exit(res.status === null ? 1 : res.status);
}

function run(bin, args) {
  exitLike(spawnSync(bin, args, { stdio: "inherit" }), bin);
}

// onPath says whether dir is one of PATH's folders, as the shell would
// find a command there.
function onPath(dir) {
  const want = path.resolve(dir);
  return (process.env.PATH || "")
    .split(path.delimiter)
    .filter(Boolean)
    .some((p) => {
      const d = path.resolve(p);
      return process.platform === "win32" ? d.toLowerCase() === want.toLowerCase() : d === want;
    });
}

// installAndTell runs the copy's install. When its folder is not on PATH,
// the binary's closing advice ("check the setup with: compact-guard doctor")
// would name a command the shell does not find, so that line is replaced
// by commands that reach it (NP-8).
function installAndTell(bin, args, binDir) {
  if (onPath(binDir)) run(bin, args);
  const res = spawnSync(bin, args, { stdio: ["inherit", "pipe", "inherit"] });
  if (res.error) fail(spawnError(bin, res.error));
  const out = res.stdout.toString();
  const advice = /^check the setup with: compact-guard doctor(.*)$/m;
  const m = out.match(advice);
  if (m) {
    const flags = m[1];
    const q = /\s/.test(bin) ? `"${bin}"` : bin;
    const shellPath = process.platform === "win32" ? `set PATH=${binDir};%PATH%` : `export PATH="${binDir}:$PATH"`;
    process.stdout.write(
      out.replace(
        advice,
        `check the setup with: ${q} doctor${flags}   (or: npx compact-guard doctor${flags})\n` +
          `note: ${binDir} is not on your PATH, so a bare \`compact-guard\` is not found; add it to your shell's profile: ${shellPath}`,
      ),
    );
  } else {
    process.stdout.write(out);
  }
  exitLike(res, bin);
}

const args = process.argv.slice(2);
const packaged = packagedBinary();
const binDir = path.resolve(process.env.BIN_DIR || path.join(os.homedir(), ".local", "bin"));
const stable = path.join(binDir, exe);
// The sub-command is the first word that is not a flag or a global flag's
// value (`help install` is the help command: it writes nothing).
let sub = "";
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--dir" || args[i] === "--lang") i++;
  else if (args[i] === "--") break;
  else if (!args[i].startsWith("-")) {
    sub = args[i];
    break;
  }
}
// writesNothing is an install that only shows: a dry run or any help.
const writesNothing =
  sub === "install" &&
  args.some((a) => a === "--dry-run" || a === "--dry-run=true" || a === "-h" || a === "--help" || a === "--help=true");
if (sub === "install" && !writesNothing) {
  if (!sameFile(packaged, stable)) {
    copyOver(packaged, stable);
    process.stderr.write(`compact-guard: installed the binary as ${stable}\n`);
  }
  installAndTell(stable, args, binDir);
}
const current = sameFile(packaged, stable);
if (writesNothing && !current && args.some((a) => a.startsWith("--dry-run"))) {
  // The binary registers its own path; a real install first copies it, so
  // the hooks will name the copy, not this package's file (NP-5).
  process.stderr.write(
    `compact-guard: dry run with ${packaged}: a real install first copies it to ${stable}, and the hooks name that path\n`,
  );
}
run(current ? stable : packaged, args);
