#!/bin/sh
# providers.sh: the rows with their own authentication, end to end
# against the fake: Azure's api-key header and deployment URLs (a row's
# extra headers and query), Vertex's Claude (streamRawPredict) and
# Gemini with a token given or made from a service account's key file:
# the JWT checked by openssl and by jose from npm (npm/node, where it
# is installed), the token kept until it expires, a refusal said; no
# key, token or key file reaches a tool or the session.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
DATA=$ROOT/test/data
unset GOOGLE_APPLICATION_CREDENTIALS GOOGLE_CLOUD_PROJECT \
    GOOGLE_CLOUD_LOCATION CLOUD_ML_REGION ANTHROPIC_VERTEX_PROJECT_ID \
    GOOGLE_CLOUD_ACCESS_TOKEN AZURE_OPENAI_API_KEY

# runp VAR=value... agent-args...: the agent in $W with AGENT_BASE_URL
# $BASE, no AGENT_API_KEY, the variables given; no terminal.
runp() {
	(cd "$W" && agentexec env -u AGENT_API_KEY -u AGENT_MODEL \
	    AGENT_BASE_URL="$BASE" "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

echo 'stand-up moves to 9:30' >"$W/notes.txt"

# Azure: the v1 API on the Responses wire, the key as api-key alone
printf 'responses\ntext hello from azure\n' >"$T/az"
startfake -x "$T/az"
BASE=$URL
runp AZURE_OPENAI_API_KEY=az-secret-1 "$ROOT/agent" -n -P azure 'hi'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "hello from azure" ] &&
    grep -q '^POST /v1/responses HTTP/1.1' "$REQ/1.head" &&
    grep -qi '^api-key: az-secret-1' "$REQ/1.head" &&
    ! grep -qi '^authorization' "$REQ/1.head" &&
    ok "azure: Responses, the key in api-key and no bearer token" ||
    fail "azure: Responses, the key in api-key and no bearer token" "rc $RC: $(cat "$T/err" "$REQ/1.head")"
jsontest "azure: the model is the deployment's name" "$REQ/1.json" \
    'd["model"] == "gpt-6.1-sol"'

# deployment URLs: the base URL's query after the endpoint, either wire
printf 'responses\ntext ok\n' >"$T/az"
printf 'text ok\n' >"$T/azc"
startfake -x "$T/az" "$T/azc"
BASE="http://127.0.0.1:$PORT/openai/deployments/dep-1?api-version=2025-04-01-preview"
runp AZURE_OPENAI_API_KEY=az-secret-1 "$ROOT/agent" -n -P azure 'hi'
runp AZURE_OPENAI_API_KEY=az-secret-1 "$ROOT/agent" -n -P azure-chat 'hi'
grep -q '^POST /openai/deployments/dep-1/responses?api-version=2025-04-01-preview HTTP/1.1' "$REQ/1.head" &&
    grep -q '^POST /openai/deployments/dep-1/chat/completions?api-version=2025-04-01-preview HTTP/1.1' "$REQ/2.head" &&
    grep -qi '^api-key: az-secret-1' "$REQ/2.head" && ! grep -qi '^authorization' "$REQ/2.head" &&
    ok "azure: a deployment URL's query goes after the endpoint, Responses and chat" ||
    fail "azure: a deployment URL's query goes after the endpoint, Responses and chat" "$(cat "$REQ/1.head" "$REQ/2.head")"

BASE=
runp AZURE_OPENAI_API_KEY=az-secret-1 "$ROOT/agent" -n -P azure 'hi'
[ "$RC" -eq 2 ] && grep -q 'azure: no base URL: set AGENT_BASE_URL' "$T/err" &&
    ok "azure: no base URL, a clear error, exit 2" ||
    fail "azure: no base URL, a clear error, exit 2" "rc $RC: $(cat "$T/err")"

# Vertex's Claude with a token given: the model in the URL, the
# version in the body, a bearer token; project and region as Claude
# Code names them
printf 'raw %s\n' "$DATA/anthropic-text.sse" >"$T/vx"
startfake -x "$T/vx"
BASE="$URL/{location-}aiplatform/projects/{project}/locations/{location}/publishers/anthropic/models"
runp GOOGLE_CLOUD_ACCESS_TOKEN=ya29.given ANTHROPIC_VERTEX_PROJECT_ID=proj-1 \
    CLOUD_ML_REGION=us-east5 "$ROOT/agent" -n -P vertex 'what does my note say?'
[ "$RC" -eq 0 ] && grep -q 'The note says' "$T/out" &&
    grep -q '^POST /v1/us-east5-aiplatform/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-5:streamRawPredict HTTP/1.1' "$REQ/1.head" &&
    grep -qi '^authorization: Bearer ya29.given' "$REQ/1.head" &&
    ! grep -qi '^x-api-key\|^anthropic-version' "$REQ/1.head" &&
    ok "vertex: streamRawPredict, the region's host, a bearer token" ||
    fail "vertex: streamRawPredict, the region's host, a bearer token" "rc $RC: $(cat "$T/err" "$REQ/1.head")"
jsontest "vertex: anthropic_version in the body, no model" "$REQ/1.json" \
    'd["anthropic_version"] == "vertex-2023-10-16" and "model" not in d and
     d["stream"] is True and d["messages"][0]["role"] == "user"'

# Vertex's Gemini: the global host, GOOGLE_CLOUD_PROJECT
printf 'gemini\ntext hello from vertex\n' >"$T/vg"
startfake -x "$T/vg"
BASE="$URL/{location-}aiplatform/projects/{project}/locations/{location}/publishers/google"
runp GOOGLE_CLOUD_ACCESS_TOKEN=ya29.given GOOGLE_CLOUD_PROJECT=proj-2 \
    "$ROOT/agent" -n -P vertex-gemini 'hi'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "hello from vertex" ] &&
    grep -q '^POST /v1/aiplatform/projects/proj-2/locations/global/publishers/google/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse HTTP/1.1' "$REQ/1.head" &&
    grep -qi '^authorization: Bearer ya29.given' "$REQ/1.head" &&
    ! grep -qi '^x-goog-api-key' "$REQ/1.head" &&
    ok "vertex-gemini: the global host, a bearer token, no x-goog-api-key" ||
    fail "vertex-gemini: the global host, a bearer token, no x-goog-api-key" "rc $RC: $(cat "$T/err" "$REQ/1.head")"

runp GOOGLE_CLOUD_ACCESS_TOKEN=ya29.given "$ROOT/agent" -n -P vertex 'hi'
[ "$RC" -eq 2 ] && grep -q 'vertex: no project: set GOOGLE_CLOUD_PROJECT' "$T/err" &&
    ok "vertex: no project, a clear error, exit 2" ||
    fail "vertex: no project, a clear error, exit 2" "rc $RC: $(cat "$T/err")"
runp "$ROOT/agent" -n -P vertex 'hi'
[ "$RC" -eq 2 ] && grep -q 'GOOGLE_CLOUD_ACCESS_TOKEN.*GOOGLE_APPLICATION_CREDENTIALS' "$T/err" &&
    ok "vertex: no token and no key file, a clear error, exit 2" ||
    fail "vertex: no token and no key file, a clear error, exit 2" "rc $RC: $(cat "$T/err")"

# a service account's key file
if ! command -v openssl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip "vertex: a service account's key file" "no openssl or python3"
	exit 0
fi
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/sa.pem" 2>/dev/null &&
    openssl pkey -in "$T/sa.pem" -pubout -out "$T/sa.pub" 2>/dev/null ||
    { fail "vertex: a test key" "openssl would not make one"; exit 0; }
# keyfile TOKENURI: the key file, as Google writes one
keyfile() {
	python3 - "$T/sa.pem" "$1" >"$T/sa.json" <<'EOF'
import json, sys
print(json.dumps({"type": "service_account", "project_id": "sa-proj",
    "private_key_id": "kid-1", "private_key": open(sys.argv[1]).read(),
    "client_email": "agent@sa-proj.iam.gserviceaccount.com",
    "client_id": "1", "token_uri": sys.argv[2]}, indent=2))
EOF
}
printf 'json {"access_token":"ya29.one","expires_in":3599,"token_type":"Bearer"}\n' >"$T/tok1"
printf 'raw %s\n' "$DATA/anthropic-toolcall.sse" >"$T/r1"
printf 'raw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
startfake -x "$T/tok1" "$T/r1" "$T/r2"
keyfile "http://127.0.0.1:$PORT/token"
BASE="$URL/projects/{project}/locations/{location}/publishers/anthropic/models"
runp GOOGLE_APPLICATION_CREDENTIALS="$T/sa.json" "$ROOT/agent" -P vertex \
    'what does my note say?'
[ "$RC" -eq 0 ] && grep -q 'The note says' "$T/out" &&
    grep -q '^POST /token HTTP/1.1' "$REQ/1.head" &&
    grep -qi '^content-type: application/x-www-form-urlencoded' "$REQ/1.head" &&
    grep -q '^POST /v1/projects/sa-proj/locations/global/publishers/anthropic/models/claude-sonnet-5:streamRawPredict' "$REQ/2.head" &&
    grep -qi '^authorization: Bearer ya29.one' "$REQ/2.head" &&
    grep -qi '^authorization: Bearer ya29.one' "$REQ/3.head" && [ ! -e "$REQ/4.head" ] &&
    ok "key file: a token from token_uri, kept for the next call; the file's project" ||
    fail "key file: a token from token_uri, kept for the next call; the file's project" "rc $RC: $(cat "$T/err") $(ls "$REQ")"
python3 - "$REQ/1.json" "$T/sa.pub" "http://127.0.0.1:$PORT/token" >"$T/py" 2>&1 <<'EOF'
import base64, json, subprocess, sys, urllib.parse
form = urllib.parse.parse_qs(open(sys.argv[1]).read(), strict_parsing=True)
assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"], form
jwt = form["assertion"][0]
open(sys.argv[1] + ".jwt", "w").write(jwt)
h, c, s = jwt.split(".")
def dec(x):
    return base64.urlsafe_b64decode(x + "=" * (-len(x) % 4))
assert "=" not in jwt and "+" not in jwt and "/" not in jwt
head, claims = json.loads(dec(h)), json.loads(dec(c))
assert head == {"alg": "RS256", "typ": "JWT", "kid": "kid-1"}, head
assert claims["iss"] == "agent@sa-proj.iam.gserviceaccount.com", claims
assert claims["aud"] == sys.argv[3], claims
assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform", claims
assert claims["exp"] - claims["iat"] == 3600, claims
open(sys.argv[1] + ".sig", "wb").write(dec(s))
open(sys.argv[1] + ".data", "w").write(h + "." + c)
r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", sys.argv[2],
    "-signature", sys.argv[1] + ".sig", sys.argv[1] + ".data"],
    capture_output=True, text=True)
assert r.returncode == 0, r.stdout + r.stderr
EOF
[ $? -eq 0 ] && ok "key file: the JWT's claims, its RS256 signature checked by openssl" ||
    fail "key file: the JWT's claims, its RS256 signature checked by openssl" "$(cat "$T/py")"
JOSE=$ROOT/npm/node/node_modules/jose
if ! command -v node >/dev/null 2>&1 || [ ! -d "$JOSE" ]; then
	skip "key file: the JWT checked by jose" "no node, or no jose in npm/node (.ci/run installs it)"
else
	cat >"$T/verify.mjs" <<EOF
import { readFileSync } from "node:fs";
import { importSPKI, jwtVerify } from "$JOSE/dist/webapi/index.js";
const key = await importSPKI(readFileSync(process.argv[2], "utf8"), "RS256");
const { payload, protectedHeader } = await jwtVerify(readFileSync(process.argv[3], "utf8"),
    key, { issuer: "agent@sa-proj.iam.gserviceaccount.com", audience: process.argv[4],
    algorithms: ["RS256"], maxTokenAge: "1h" });
if (protectedHeader.kid !== "kid-1" || !payload.scope) throw new Error("claims");
EOF
	node "$T/verify.mjs" "$T/sa.pub" "$REQ/1.json.jwt" "http://127.0.0.1:$PORT/token" >"$T/node" 2>&1 &&
	    ok "key file: the JWT checked by jose (jwtVerify)" ||
	    fail "key file: the JWT checked by jose (jwtVerify)" "$(cat "$T/node")"
fi
S=$(ls "$T"/sessions/*/*.jsonl 2>/dev/null | tail -1)
[ -n "$S" ] && ! grep -q 'ya29.one\|PRIVATE KEY\|eyJ' "$S" && ! grep -q 'ya29\|PRIVATE\|eyJ' "$T/out" "$T/err" &&
    ok "key file: the token, the key and the JWT in no session, stdout or stderr" ||
    fail "key file: the token, the key and the JWT in no session, stdout or stderr" "$S"

# a token about to expire is renewed before the next call
printf 'json {"access_token":"ya29.short","expires_in":30}\n' >"$T/tok1"
printf 'json {"access_token":"ya29.two","expires_in":3599}\n' >"$T/tok2"
startfake -x "$T/tok1" "$T/r1" "$T/tok2" "$T/r2"
keyfile "http://127.0.0.1:$PORT/token"
BASE="$URL/projects/{project}/locations/{location}/publishers/anthropic/models"
runp GOOGLE_APPLICATION_CREDENTIALS="$T/sa.json" GOOGLE_CLOUD_PROJECT=p "$ROOT/agent" -n -P vertex \
    'what does my note say?'
[ "$RC" -eq 0 ] && grep -qi '^authorization: Bearer ya29.short' "$REQ/2.head" &&
    grep -q '^POST /token' "$REQ/3.head" && grep -qi '^authorization: Bearer ya29.two' "$REQ/4.head" &&
    ok "key file: a token within a minute of its end is renewed" ||
    fail "key file: a token within a minute of its end is renewed" "rc $RC: $(cat "$T/err")"

# the token endpoint refuses: its words, exit 1
printf 'status 400\njson {"error":"invalid_grant","error_description":"Invalid JWT Signature."}\n' >"$T/no"
startfake -x "$T/no"
keyfile "http://127.0.0.1:$PORT/token"
runp GOOGLE_APPLICATION_CREDENTIALS="$T/sa.json" "$ROOT/agent" -n -P vertex 'hi'
[ "$RC" -eq 1 ] && grep -q 'HTTP 400: invalid_grant: Invalid JWT Signature.' "$T/err" &&
    ! grep -q 'eyJ' "$T/err" &&
    ok "key file: a refusing token endpoint, its message, exit 1" ||
    fail "key file: a refusing token endpoint, its message, exit 1" "rc $RC: $(cat "$T/err")"

# a key file that is none: said, not shown
printf '{"type":"authorized_user","client_secret":"cs-secret-9","refresh_token":"rt"}' >"$T/bad.json"
runp GOOGLE_APPLICATION_CREDENTIALS="$T/bad.json" GOOGLE_CLOUD_PROJECT=p "$ROOT/agent" -n -P vertex 'hi'
[ "$RC" -eq 2 ] && grep -q 'not service_account' "$T/err" && ! grep -q 'cs-secret-9' "$T/err" &&
    ok "key file: a user's credentials are refused, their secret not shown" ||
    fail "key file: a user's credentials are refused, their secret not shown" "rc $RC: $(cat "$T/err")"
sed 's/MII/MIX/' "$T/sa.json" >"$T/bad.json"
runp GOOGLE_APPLICATION_CREDENTIALS="$T/bad.json" GOOGLE_CLOUD_PROJECT=p "$ROOT/agent" -n -P vertex 'hi'
[ "$RC" -eq 2 ] && grep -q "private_key cannot be read in $T/bad.json" "$T/err" &&
    ok "key file: a broken key, said with the file's name" ||
    fail "key file: a broken key, said with the file's name" "rc $RC: $(cat "$T/err")"

# no key, token or key file's name reaches a tool
printf 'tool c1 bash {"command":"env"}\n' >"$T/t1"
printf 'text done\n' >"$T/t2"
startfake -x "$T/t1" "$T/t2"
BASE=$URL
runp AZURE_OPENAI_API_KEY=az-secret-1 GOOGLE_CLOUD_ACCESS_TOKEN=ya29.given \
    GOOGLE_APPLICATION_CREDENTIALS="$T/sa.json" "$ROOT/agent" -n -y -P azure-chat 'env?'
python3 - "$REQ/2.json" >"$T/py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = [m for m in d["messages"] if m["role"] == "tool"][0]["content"]
r = r if isinstance(r, str) else json.dumps(r)
assert "PATH=" in r, r[:300]
for s in ("az-secret-1", "ya29.given", "sa.json"):
    assert s not in r, s
EOF
[ $? -eq 0 ] && ok "tools: AZURE_OPENAI_API_KEY, GOOGLE_CLOUD_ACCESS_TOKEN, GOOGLE_APPLICATION_CREDENTIALS kept from bash" ||
    fail "tools: AZURE_OPENAI_API_KEY, GOOGLE_CLOUD_ACCESS_TOKEN, GOOGLE_APPLICATION_CREDENTIALS kept from bash" "rc $RC: $(cat "$T/py" "$T/err")"

# every row's default model has a price: the usage line says a cost
# (vllm has no default model)
BASE=
for row in openai:resp openai-chat:chat anthropic:anth gemini:gem \
    openrouter:chat deepseek:chat groq:chat mistral:chat ollama:chat \
    llamacpp:chat azure:resp azure-chat:chat vertex:anth vertex-gemini:gem; do
	case ${row#*:} in
	resp) printf 'responses\ntext ok\nusage 1000 100\n' ;;
	chat) printf 'text ok\nusage 1000 100\n' ;;
	anth) printf 'raw %s\n' "$DATA/anthropic-text.sse" ;;
	gem) printf 'gemini\ntext ok\nusage 1000 100\n' ;;
	esac >"$T/price"
	startfake -x "$T/price"
	(cd "$W" && agentexec env -u AGENT_MODEL "$ROOT/agent" -n -P "${row%%:*}" 'hi') \
	    </dev/null >"$T/out" 2>"$T/err"
	if grep -q 'tokens: .*, \$[0-9]' "$T/err"; then
		ok "prices: ${row%%:*}: its default model has a price"
	else
		fail "prices: ${row%%:*}: its default model has a price" "$(cat "$T/err")"
	fi
done
