#!/bin/sh
# gitguard.sh: what a hostile model or repository cannot do through git
# or the plan file: .git's config, hooks and info put back after a tool
# changed them (a profile with gitwrite 0), write and edit refusing them,
# -g full leaving them changed; -g plan refusing a plan file that leads
# outside, by a link or a hard link, and writing one that does not.
. test/lib.sh
ROOT=$PWD
W=$T/work
O=$T/outside

# runat args...: the agent in $W, no terminal to ask on.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "${AGENT:-$ROOT/agent}" \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

fresh() {
	rm -rf "$W" "$O" "$T/sessions"
	mkdir -p "$W" "$O"
	echo keep >"$O/f"
}

# has NAME N TEXT: ok when the last message of request N holds TEXT.
has() {
	jsontest "$1" "$REQ/$2.json" \
	    '"""'"$3"'""" in d["messages"][-1]["content"]'
}

# calls FILE...: one request a file, each a script of one tool call
# ("tool ID NAME ARGS"), then the last answer.
calls() {
	_n=0
	for _c in "$@"; do
		_n=$((_n + 1))
		printf '%s\nfinish tool_calls\n' "$_c" >"$T/c$_n"
		set -- "$@" "$T/c$_n"
	done
	shift "$_n"
	startfake -x "$@" "$T/done"
}

printf 'text done\nfinish stop\n' | script done
if ! command -v python3 >/dev/null 2>&1; then
	skip "gitguard" "no python3 to read the requests with"
	exit 0
fi

# The plan file.  A link to a file outside, a dangling link outside, a
# hard link to a file outside: the profile does not start, nothing is
# asked of the model, the file outside is as it was.
planwrite='tool p1 write {"path": "PLAN.md", "content": "1. plan\n"}'
for kind in link dangling hard; do
	fresh
	case $kind in
	link) ln -s "$O/f" "$W/PLAN.md"; why="is a symbolic link" ;;
	dangling) ln -s "$O/none" "$W/PLAN.md"; why="is a symbolic link" ;;
	hard) ln "$O/f" "$W/PLAN.md"; why="has 2 hard links" ;;
	esac
	calls "$planwrite"
	runat -y -g plan 'plan it'
	n="plan: PLAN.md as a $kind outside"
	[ "$RC" -eq 2 ] && grep -q "agent: the plan file PLAN.md $why" \
	    "$T/err" && ok "$n: refused at start" ||
	    fail "$n: refused at start" "rc $RC: $(cat "$T/err")"
	[ ! -e "$REQ/1.json" ] && ok "$n: no request made" ||
	    fail "$n: no request made" "$(ls "$REQ")"
	[ "$(cat "$O/f")" = keep ] && [ ! -e "$O/none" ] &&
	    ok "$n: the file outside is untouched" ||
	    fail "$n: the file outside is untouched" "$(ls -l "$O")"
done

# A plain PLAN.md, and none: the plan is written.
for kind in plain absent; do
	fresh
	[ "$kind" = plain ] && echo old >"$W/PLAN.md"
	calls "$planwrite"
	runat -y -g plan 'plan it'
	[ "$RC" -eq 0 ] && [ "$(cat "$W/PLAN.md")" = "1. plan" ] &&
	    [ ! -L "$W/PLAN.md" ] && ok "plan: a $kind PLAN.md is written" ||
	    fail "plan: a $kind PLAN.md is written" "rc $RC: $(cat "$T/err")"
done

# A link planted by bash in the plan file's place does not take the
# write tool's write, whether Landlock stops bash (it does) or not.
for ll in 0 1; do
	fresh
	echo old >"$W/PLAN.md"
	calls "tool b1 bash {\"command\": \"rm -f PLAN.md; ln -s $O/x PLAN.md\"}" \
	    "$planwrite"
	if [ "$ll" = 1 ]; then
		n="plan: a link bash plants (AGENT_NO_LANDLOCK)"
		AGENT_NO_LANDLOCK=1 runat -y -g plan 'plan it'
	else
		n="plan: a link bash plants"
		runat -y -g plan 'plan it'
	fi
	[ ! -e "$O/x" ] && ok "$n: nothing written outside" ||
	    fail "$n: nothing written outside" "$O/x: $(cat "$O/x")"
done

if ! command -v git >/dev/null 2>&1; then
	skip "gitguard: git" "no git here"
	exit 0
fi
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t \
    GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t

# gitrepo: $W a repository with a commit, a hook and g -> .git, as a
# repository might come; its config, hooks and info kept in $T/was.
gitrepo() {
	fresh
	(cd "$W" && git init -q "$@" && echo a >a && git add a &&
	    git commit -qm one && ln -s .git g) || return 1
	printf '#!/bin/sh\nexit 0\n' >"$W/.git/hooks/post-commit"
	chmod 755 "$W/.git/hooks/post-commit"
	rm -rf "$T/was"
	mkdir "$T/was"
	cp -a "$W/.git/config" "$W/.git/hooks" "$W/.git/info" "$T/was"
}

# samegit NAME: ok when .git's config, hooks and info are as kept, links
# as links, modes too, and neither commondir nor config.worktree is.
samegit() {
	rm -rf "$T/now"
	mkdir "$T/now"
	cp -a "$W/.git/config" "$W/.git/hooks" "$W/.git/info" "$T/now" &&
	    diff -r --no-dereference "$T/was" "$T/now" >"$T/diff" 2>&1 &&
	    [ "$(cd "$T/was" && ls -lR | sed 's/ [A-Z][a-z][a-z] .*[0-9] / /')" = \
	      "$(cd "$T/now" && ls -lR | sed 's/ [A-Z][a-z][a-z] .*[0-9] / /')" ] &&
	    [ ! -e "$W/.git/commondir" ] && [ ! -e "$W/.git/config.worktree" ] &&
	    ok "$1" || fail "$1" "$(cat "$T/diff"; ls -la "$W/.git")"
}

# Under workspace: bash sets core.fsmonitor and writes a hook; ordinary
# work (files, git add and commit) goes on; git run afterwards runs
# neither.
gitrepo
hook="printf '#!/bin/sh\\\\ntouch $O/hooked\\\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"
calls "tool b1 bash {\"command\": \"git config core.fsmonitor 'touch $O/pwned'\"}" \
    "tool b2 bash {\"command\": \"$hook\"}" \
    'tool b3 bash {"command": "echo b > b && git add b && git commit -qm two && echo committed"}'
runat -y 'go'
[ "$RC" -eq 0 ] && ok "git: the run ends well" ||
    fail "git: the run ends well" "rc $RC: $(cat "$T/err")"
samegit "git: config and hooks as they were"
has "git: the model is told the config was restored" 2 \
    "Restored .git/config: git's configuration and hooks"
has "git: the model is told the hook was restored" 3 \
    "Restored .git/hooks/pre-commit: git's configuration and hooks"
has "git: git add and commit work" 4 committed
jsontest "git: git add and commit restore nothing" "$REQ/4.json" \
    '"Restored" not in d["messages"][-1]["content"]'
grep -q 'agent: a tool changed .git/config: put back' "$T/err" &&
    ok "git: the user is warned" || fail "git: the user is warned" \
    "$(cat "$T/err")"
(cd "$W" && git status >/dev/null 2>&1 && git commit -q --allow-empty -m x)
[ ! -e "$O/pwned" ] && ok "git: git status runs no command of the model's" ||
    fail "git: git status runs no command of the model's" "$(ls "$O")"
[ ! -e "$O/hooked" ] && ok "git: git commit runs no hook of the model's" ||
    fail "git: git commit runs no hook of the model's" "$O/hooked"
[ "$(cd "$W" && git log --format=%s | head -1)" = x ] &&
    [ "$(cd "$W" && git show --format= --name-only HEAD~1)" = b ] &&
    ok "git: the model's commit stays" ||
    fail "git: the model's commit stays" "$(cd "$W" && git log --stat)"

# bash puts a link in hooks' place, makes commondir; write takes
# .git/config, and a hook through g.
gitrepo
mkdir "$O/hooks"
calls "tool b1 bash {\"command\": \"mv .git/hooks .git/h2 && ln -s $O/hooks .git/hooks\"}" \
    "tool b2 bash {\"command\": \"echo $O > .git/commondir\"}" \
    'tool w1 write {"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}' \
    'tool w2 write {"path": "g/hooks/pre-commit", "content": "#!/bin/sh\ntouch pwned\n"}'
runat -y 'go'
samegit "git: hooks and commondir as they were"
has "git: the model is told hooks was restored" 2 \
    "Restored .git/hooks: git's configuration"
has "git: the model is told commondir was removed" 3 \
    "Restored .git/commondir: git's configuration"
has "git: write refuses .git/config" 4 "is git's configuration or hooks"
has "git: write refuses a hook through a link to .git" 5 \
    "is git's configuration or hooks"
[ -z "$(ls -A "$O/hooks")" ] && ok "git: nothing written through the link" ||
    fail "git: nothing written through the link" "$(ls "$O/hooks")"

# .git itself made a link to elsewhere: a .git directory with what was
# kept is back, the link gone, and what it led to untouched.
gitrepo
mkdir "$O/repo"
calls "tool b1 bash {\"command\": \"mv .git .gitold && ln -s $O/repo .git\"}"
runat -y 'go'
[ -d "$W/.git" ] && [ ! -L "$W/.git" ] && [ -z "$(ls -A "$O/repo")" ] &&
    ok "git: a link in .git's place is removed" ||
    fail "git: a link in .git's place is removed" "$(ls -la "$W" "$O/repo")"
samegit "git: .git's config and hooks put back in a new .git"

# Under full (gitwrite 1) the change stays.
gitrepo
calls "tool b1 bash {\"command\": \"git config core.fsmonitor 'touch $O/pwned'\"}"
runat -y -g full 'go'
[ "$(cd "$W" && git config core.fsmonitor)" = "touch $O/pwned" ] &&
    ok "git: -g full lets tools change the config" ||
    fail "git: -g full lets tools change the config" "$(cat "$T/err")"

# A directory too deep to remove where the restore might make its
# temporary file stops nothing: the temporary name is not guessed.
# mkdeep: a command making $d 300 directories deep, deeper than
# rmtreeat walks in one pass.
mkdeep='i=0; while [ $i -lt 300 ]; do d=$d/d; i=$((i+1)); done'
mkdeep="$mkdeep; mkdir -p \$d"
gitrepo
deep="d=.git/config.agent-restore; $mkdeep; for h in \$(ls .git/hooks); do"
deep="$deep mkdir .git/hooks/\$h.agent-restore; done"
fsmon="git config core.fsmonitor 'touch $O/pwned'"
calls "tool b1 bash {\"command\": \"$deep\"}" \
    "tool b2 bash {\"command\": \"$fsmon\"}"
runat -y 'go'
[ "$RC" -eq 0 ] && ok "git: a deep directory at a restore's name: ends well" ||
    fail "git: a deep directory at a restore's name: ends well" \
    "rc $RC: $(cat "$T/err")"
has "git: a deep directory at a restore's name: config restored" 3 \
    "Restored .git/config: git's configuration and hooks"
(cd "$W" && git status >/dev/null 2>&1)
[ ! -e "$O/pwned" ] &&
    ok "git: a deep directory at a restore's name: git status is safe" ||
    fail "git: a deep directory at a restore's name: git status is safe" \
    "$(cat "$T/err")"

# .git/config made a directory 300 deep, past rmtreeat's depth: the
# tree still goes whole (moved up and walked again), the config comes
# back and the model is told so; the next check finds nothing.
gitrepo
deep="mv .git/config .git/c0; d=.git/config; $mkdeep"
calls "tool b1 bash {\"command\": \"$deep\"}" \
    'tool b2 bash {"command": "echo again"}'
runat -y 'go'
n="git: .git/config made a deep directory"
[ "$RC" -eq 0 ] && ok "$n: ends well" ||
    fail "$n: ends well" "rc $RC: $(cat "$T/err")"
has "$n: the model is told it was restored" 2 \
    "Restored .git/config: git's configuration and hooks"
jsontest "$n: not told twice" "$REQ/3.json" \
    '"Restored" not in d["messages"][-1]["content"]'
[ -f "$W/.git/config" ] && ok "$n: a file again" ||
    fail "$n: a file again" "$(ls -la "$W/.git")"

# Thousands of files added to hooks: all removed, the first few named,
# the rest counted.
gitrepo
calls 'tool b1 bash {"command": "cd .git/hooks && seq 1 2000 | xargs touch"}'
runat -y 'go'
samegit "git: 2000 files added to hooks are removed"
has "git: 2000 files: the rest counted" 2 " and 1980 more: git's"
n=$(wc -c <"$REQ/2.json")
[ "$n" -lt 8000 ] && ok "git: 2000 files: the tool result stays small" ||
    fail "git: 2000 files: the tool result stays small" "$n bytes"
n=$(wc -c <"$T/err")
[ "$n" -lt 4000 ] && ok "git: 2000 files: the warning stays small" ||
    fail "git: 2000 files: the warning stays small" "$n bytes"

# plant DIR NAME CMD: a command making submodule NAME of the repository
# in DIR, its .git directory in .git/modules, its config running CMD.
plant() {
	cat <<-END
	set -e; cd $1
	git init -q --bare .git/modules/$2
	git --git-dir=.git/modules/$2 config core.bare false
	git --git-dir=.git/modules/$2 config core.worktree ../../../$2
	mkdir $2 && echo "gitdir: ../.git/modules/$2" > $2/.git
	(cd $2 && echo y > g && git add g && git commit -qm s)
	git update-index --add --cacheinfo \\
	    160000,\$(cd $2 && git rev-parse HEAD),$2
	git --git-dir=.git/modules/$2 config core.fsmonitor '$3'
	END
}

# A submodule planted: its .git directory removed, .git/modules too.
gitrepo
plant . s "touch $O/pwned; false" >"$O/plant.sh"
calls "tool b1 bash {\"command\": \"sh $O/plant.sh && echo planted\"}"
runat -y 'go'
n="git: a submodule planted"
has "$n: the model is told" 2 "Restored .git/modules, s/.git: git's configuration"
[ ! -e "$W/.git/modules" ] && ok "$n: .git/modules removed" ||
    fail "$n: .git/modules removed" "$(ls -la "$W/.git/modules")"
(cd "$W" && git status >/dev/null 2>&1)
[ ! -e "$O/pwned" ] && ok "$n: git status is safe" ||
    fail "$n: git status is safe" "$(cat "$T/err")"

# With a submodule at start: its config and hooks are kept, a submodule
# added beside it is removed, a commit in it stays.
gitrepo
plant "$W" s : | sh || fail "git: a submodule" "cannot make it"
(cd "$W" && git commit -qm sub) || fail "git: a submodule" "cannot commit"
plant . t "touch $O/pwned2; false" >"$O/plant.sh"
fsmon="git --git-dir=.git/modules/s config core.fsmonitor 'touch $O/pwned'"
calls "tool b1 bash {\"command\": \"$fsmon\"}" \
    "tool b2 bash {\"command\": \"sh $O/plant.sh && echo planted\"}" \
    'tool b3 bash {"command": "cd s && echo z >g && git commit -qam z"}'
runat -y 'go'
n="git: a submodule at start"
has "$n: the model is told its config was restored" 2 \
    "Restored .git/modules/s/config: git's"
has "$n: the model is told of the one planted" 3 \
    "Restored .git/modules/t, t/.git: git's"
jsontest "$n: a commit in it restores nothing" "$REQ/4.json" \
    '"Restored" not in d["messages"][-1]["content"]'
[ "$(cd "$W/s" && git log --format=%s | head -1)" = z ] &&
    ok "$n: the commit in it stays" ||
    fail "$n: the commit in it stays" "$(cd "$W/s" && git log)"
(cd "$W" && git status >/dev/null 2>&1)
[ ! -e "$O/pwned" ] && [ ! -e "$O/pwned2" ] &&
    [ ! -e "$W/.git/modules/t" ] && ok "$n: git status is safe" ||
    fail "$n: git status is safe" "$(ls "$O")"

# A repository made in the tree and added as a submodule (a gitlink in
# the index, its .git in its directory): git status would enter it and
# obey its config.  What git obeys of it goes; its history stays.  The
# index of each version, and of SHA-256 object names.
for f in 2 3 4 sha256; do
	case $f in
	sha256) gitrepo --object-format=sha256 ;;
	*) gitrepo && git -C "$W" update-index --index-version $f ;;
	esac
	o=; [ $f = sha256 ] && o=--object-format=sha256
	mk="mkdir e && cd e && git init -q $o && git -c user.email=a@b"
	mk="$mk -c user.name=a commit -q --allow-empty -m x && git config"
	mk="$mk core.fsmonitor 'touch $O/pwned; false' && cd .. && git add e"
	printf '%s && echo planted\n' "$mk" >"$O/plant.sh"
	calls "tool b1 bash {\"command\": \"sh $O/plant.sh\"}"
	runat -y 'go'
	n="git: a repository added as a submodule (index $f)"
	[ "$RC" -eq 0 ] && ok "$n: the run ends well" ||
	    fail "$n: the run ends well" "rc $RC: $(cat "$T/err")"
	has "$n: the model is told" 2 "Restored e/.git/config, e/.git/hooks"
	[ -d "$W/e/.git/objects" ] && [ ! -e "$W/e/.git/config" ] &&
	    ok "$n: its config gone, its history kept" ||
	    fail "$n: its config gone, its history kept" \
	    "$(ls -la "$W/e/.git")"
	(cd "$W" && git status >/dev/null 2>&1)
	[ ! -e "$O/pwned" ] && ok "$n: git status is safe" ||
	    fail "$n: git status is safe" "$(cat "$T/err")"
done

# A submodule at start: its .git file made to name another repository,
# one whose config runs a command, is put back.
gitrepo
plant "$W" s : | sh || fail "git: a submodule" "cannot make it"
(cd "$W" && git commit -qm sub) || fail "git: a submodule" "cannot commit"
mk="git init -q ev && git -C ev config core.fsmonitor 'touch $O/pwned; false'"
mk="$mk && echo 'gitdir: ../ev/.git' >s/.git && echo moved"
printf '%s\n' "$mk" >"$O/plant.sh"
calls "tool b1 bash {\"command\": \"sh $O/plant.sh\"}"
runat -y 'go'
n="git: a submodule's .git file made to name another repository"
has "$n: the model is told" 2 "Restored s/.git: git's"
[ "$(cat "$W/s/.git")" = "gitdir: ../.git/modules/s" ] &&
    ok "$n: put back" || fail "$n: put back" "$(cat "$W/s/.git")"
(cd "$W" && git status >/dev/null 2>&1)
[ ! -e "$O/pwned" ] && ok "$n: git status is safe" ||
    fail "$n: git status is safe" "$(cat "$T/err")"

# A repository in the tree, a submodule at start: its config is kept as
# .git's is; removing the submodule is no change to put back.
gitrepo
(cd "$W" && mkdir e && cd e && git init -q &&
    git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x &&
    cd .. && git add e 2>/dev/null && git commit -qm e) ||
    fail "git: a repository in the tree" "cannot make it"
calls "tool b1 bash {\"command\": \"git -C e config core.fsmonitor 'touch $O/pwned; false'\"}" \
    'tool b2 bash {"command": "rm -rf e && echo gone"}'
runat -y 'go'
n="git: a repository in the tree, a submodule at start"
[ "$RC" -eq 0 ] && ok "$n: the run ends well" ||
    fail "$n: the run ends well" "rc $RC: $(cat "$T/err")"
has "$n: the model is told its config was restored" 2 \
    "Restored e/.git/config: git's"
jsontest "$n: removing it restores nothing" "$REQ/3.json" \
    '"Restored" not in d["messages"][-1]["content"]'
[ ! -e "$W/e" ] && ok "$n: removed, it stays so" ||
    fail "$n: removed, it stays so" "$(ls -la "$W/e")"

# A repository in the tree from before the run, no submodule: a tool's
# git add -A takes it in as one.  Its config is the user's, older than
# the run: kept, its remote with it.  Changed by the tool in that run,
# it goes.
oldrepo() {
	gitrepo
	(cd "$W" && git init -q v && git -C v config remote.origin.url \
	    https://example.com/v.git && git -C v -c user.email=a@b \
	    -c user.name=a commit -q --allow-empty -m v) ||
	    fail "git: a repository in the tree" "cannot make it"
	sleep 3	# older than the run by more than its 2 s
}
n="git: a repository from before the run, taken in by git add"
oldrepo
calls 'tool b1 bash {"command": "git add -A 2>/dev/null; git ls-files -s v"}'
runat -y 'go'
[ "$(git -C "$W/v" config remote.origin.url)" = https://example.com/v.git ] &&
    ok "$n: its config kept" || fail "$n: its config kept" "$(cat "$T/err")"
jsontest "$n: nothing said restored" "$REQ/2.json" \
    '"Restored" not in d["messages"][-1]["content"]'
oldrepo
calls "tool b1 bash {\"command\": \"git -C v config core.fsmonitor 'touch $O/pwned; false' && git add -A 2>/dev/null\"}"
runat -y 'go'
has "$n: its config changed by a tool: removed" 2 "Restored v/.git/config"
(cd "$W" && git status >/dev/null 2>&1)
[ ! -e "$O/pwned" ] && ok "$n: git status is safe" ||
    fail "$n: git status is safe" "$(cat "$T/err")"
