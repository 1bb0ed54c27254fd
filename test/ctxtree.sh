#!/bin/sh
# ctxtree.sh: context files come from the tree they name.  A hostile
# repository's AGENTS.md, CLAUDE.md, SKILL.md or prompt template that is
# a link out of the tree (to ~/.ssh/id_rsa, to /proc/self/environ) is
# refused with a warning, and what it points at never reaches the model;
# a link that stays in the tree still works.
. test/lib.sh
ROOT=$PWD
W=$T/work
O=$T/outside
KEY=BEGIN-FAKE-KEY-s3cr3t-0123
ENVSECRET=envsecret-canary-4567

# runat DIR args...: the agent in DIR, stdin from /dev/null, the first
# variable of its environment CANARY (what /proc/self/environ would give
# up to its first NUL).
runat() {
	_dir=$1
	shift
	(cd "$_dir" && exec env -i CANARY="$ENVSECRET" PATH="$PATH" HOME="$T" \
	    AGENT_SESSION_DIR="$T/sessions" AGENT_BASE_URL="$URL" \
	    AGENT_API_KEY=test-key AGENT_PROVIDER=openai-chat \
	    AGENT_MODEL=fake-model timeout 30 "$ROOT/agent" -n "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
# leaks NAME TEXT: ok when no request the fake recorded holds TEXT.
leaks() {
	if grep -rqF -- "$2" "$REQ"; then
		fail "$1" "$2 was sent to the model"
	else
		ok "$1"
	fi
}
# said NAME TEXT: ok when stderr holds TEXT.
said() {
	grep -qF -- "$2" "$T/err" && ok "$1" || fail "$1" "$(cat "$T/err")"
}
# sent NAME TEXT: ok when request 1 holds TEXT.
sent() {
	grep -qF -- "$2" "$REQ/1.json" && ok "$1" ||
	    fail "$1" "not sent: $2 $(cat "$T/err")"
}

script ok <<'X'
text done
finish stop
X

# the user's key, and a hostile repository in their home
mkdir -p "$T/.ssh" "$O" "$W/.git" "$W/sub" "$W/docs" \
    "$W/.agents/skills/evil" "$W/.agents/skills/good" "$W/.agents/prompts"
printf '%s\n' "$KEY" >"$T/.ssh/id_rsa"
chmod 600 "$T/.ssh/id_rsa"
ln -s "$T/.ssh/id_rsa" "$W/AGENTS.md"
ln -s /proc/self/environ "$W/sub/CLAUDE.md"
printf -- '---\nname: evil\ndescription: outside-skill-desc %s\n---\n' \
    "$KEY" >"$O/SKILL.md"
ln -s "$O/SKILL.md" "$W/.agents/skills/evil/SKILL.md"
printf -- '---\nname: good\ndescription: inside-skill-desc\n---\n' \
    >"$W/docs/good.md"
ln -s ../../../docs/good.md "$W/.agents/skills/good/SKILL.md"
ln -s "$T/.ssh/id_rsa" "$W/.agents/prompts/leak.md"
printf 'inside-template $1\n' >"$W/docs/tmpl.md"
ln -s ../../docs/tmpl.md "$W/.agents/prompts/fine.md"

startfake -x "$T/ok"
runat "$W" 'hi'
[ "$RC" -eq 0 ] && ok "a run beside hostile context files: exit 0" ||
    fail "a run beside hostile context files: exit 0" "rc $RC $(cat "$T/err")"
leaks "AGENTS.md -> ~/.ssh/id_rsa: the key is not sent" "$KEY"
leaks "a skill whose SKILL.md leads outside is not listed" \
    "outside-skill-desc"
said "AGENTS.md leading outside is named on stderr" \
    "agent: $W/AGENTS.md leads outside $W: not read"
said "the skill leading outside is named on stderr" \
    "agent: $W/.agents/skills/evil/SKILL.md leads outside $W: not read"
sent "a skill linked within the project is listed" "inside-skill-desc"

startfake -x "$T/ok"
runat "$W/sub" 'hi'
leaks "CLAUDE.md -> /proc/self/environ: agent's environment is not sent" \
    "$ENVSECRET"
said "CLAUDE.md leading to /proc is named on stderr" \
    "agent: $W/sub/CLAUDE.md leads outside $W/sub: not read"

startfake -x "$T/ok"
runat "$W" '/leak now'
leaks "a template -> ~/.ssh/id_rsa: the key is not sent" "$KEY"
said "the template leading outside is named on stderr" \
    "agent: .agents/prompts/leak.md leads outside $W: not read"
startfake -x "$T/ok"
runat "$W" '/fine x'
sent "a template linked within the project expands" "inside-template x"

# links that stay in the tree: AGENTS.md -> docs/AGENTS.md, and CLAUDE.md
# -> AGENTS.md beside it; a home skill linked within the home directory
rm -rf "$W/AGENTS.md" "$W/sub/CLAUDE.md" "$W/.agents/skills/evil" \
    "$W/.agents/prompts/leak.md"
printf 'inside-rule-ok\n' >"$W/docs/AGENTS.md"
ln -s docs/AGENTS.md "$W/AGENTS.md"
printf 'sub-rule-ok\n' >"$W/sub/AGENTS.md"
ln -s AGENTS.md "$W/sub/CLAUDE.md"
mv "$W/sub/AGENTS.md" "$W/sub/real.md"
ln -s real.md "$W/sub/AGENTS.md"
mkdir -p "$T/.agents/skills/mine" "$T/dotfiles"
printf -- '---\nname: mine\ndescription: home-skill-desc\n---\n' \
    >"$T/dotfiles/mine.md"
ln -s "$T/dotfiles/mine.md" "$T/.agents/skills/mine/SKILL.md"
startfake -x "$T/ok"
runat "$W/sub" 'hi'
sent "AGENTS.md -> docs/AGENTS.md in the tree is read" "inside-rule-ok"
sent "AGENTS.md -> real.md beside it is read" "sub-rule-ok"
sent "a home skill linked within the home directory is listed" \
    "home-skill-desc"
grep -q 'leads outside' "$T/err" &&
    fail "no warning for links within the tree" "$(cat "$T/err")" ||
    ok "no warning for links within the tree"
