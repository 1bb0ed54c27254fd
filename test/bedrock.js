// See LICENSE file for copyright and license details.
// bedrock.js: a Bedrock stand-in made of AWS's own code, for
// test/bedrock.sh: each request's SigV4 signature is checked by
// @smithy/signature-v4 (the SDK's signer, signing the request again as
// received), and the answer is framed by @smithy/eventstream-codec.
//
// usage: node bedrock.js portfile logfile secret
//
// Listens on 127.0.0.1, writes its port to portfile.  A request whose
// signature holds is answered with Anthropic's stream of one text block,
// "Signed and framed by AWS's own code.", in chunk messages sent a few
// bytes at a time, with a message of every header type before them (an
// event of a type a client passes over); one whose signature does not
// hold gets a 403 and Bedrock's words.  logfile gets a line a request:
// "signature ok" or "signature bad: WHY".
"use strict";
const http = require("http");
const fs = require("fs");
const { SignatureV4 } = require("@smithy/signature-v4");
const { Sha256 } = require("@aws-crypto/sha256-js");
const { EventStreamCodec, Int64 } = require("@smithy/eventstream-codec");
const { toUtf8, fromUtf8 } = require("@smithy/util-utf8");

const [portfile, logfile, secret] = process.argv.slice(2);
const codec = new EventStreamCodec(toUtf8, fromUtf8);

// The request signed again by the SDK's signer, from what arrived: the
// headers it says it signed, its date and its credential's scope.
async function verify(req, body) {
	const auth = req.headers.authorization || "";
	const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
	if (!m)
		return "no SigV4 Authorization header: " + auth;
	const [, id, day, region, service, signed] = m;
	const amzdate = req.headers["x-amz-date"] || "";
	if (amzdate.slice(0, 8) !== day)
		return "x-amz-date " + amzdate + " is not the scope's day";
	const headers = {};
	for (const h of signed.split(";"))
		headers[h] = req.headers[h];
	const q = req.url.indexOf("?");
	const query = {};
	if (q >= 0)
		for (const [k, v] of new URLSearchParams(req.url.slice(q + 1)))
			query[k] = v;
	const signer = new SignatureV4({
		credentials: {
			accessKeyId: id,
			secretAccessKey: secret,
			sessionToken: req.headers["x-amz-security-token"],
		},
		region, service, sha256: Sha256, applyChecksum: false,
	});
	const d = amzdate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
	    "$1-$2-$3T$4:$5:$6Z");
	const again = await signer.sign({
		method: req.method, protocol: "http:",
		hostname: req.headers.host, path: q >= 0 ?
		    req.url.slice(0, q) : req.url,
		query, headers, body,
	}, { signingDate: new Date(d) });
	if (again.headers.authorization !== auth)
		return "the SDK signs it " + again.headers.authorization;
	return null;
}

function header(type, value) {
	return { type, value };
}

function chunk(ev) {
	return codec.encode({
		headers: {
			":event-type": header("string", "chunk"),
			":content-type": header("string", "application/json"),
			":message-type": header("string", "event"),
		},
		body: fromUtf8(JSON.stringify({
			bytes: Buffer.from(JSON.stringify(ev)).toString("base64"),
			p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
		})),
	});
}

function answer() {
	const text = "Signed and framed by AWS's own code.";
	const frames = [
		codec.encode({
			headers: {
				":message-type": header("string", "event"),
				":event-type": header("string", "metadata"),
				"t": header("boolean", true),
				"f": header("boolean", false),
				"b": header("byte", -3),
				"s": header("short", 300),
				"i": header("integer", -70000),
				"l": header("long", Int64.fromNumber(1 << 30)),
				"y": header("binary", new Uint8Array([0, 255, 7])),
				"d": header("timestamp", new Date(0)),
				"u": header("uuid",
				    "a5e1b6b0-3f3b-4c5e-9a6e-2b9d1e0c7f11"),
			},
			body: fromUtf8("{}"),
		}),
		chunk({ type: "message_start", message: { id: "msg_aws",
		    type: "message", role: "assistant", content: [],
		    usage: { input_tokens: 20, output_tokens: 1 } } }),
		chunk({ type: "content_block_start", index: 0,
		    content_block: { type: "text", text: "" } }),
		chunk({ type: "content_block_delta", index: 0,
		    delta: { type: "text_delta", text } }),
		chunk({ type: "content_block_stop", index: 0 }),
		chunk({ type: "message_delta", delta: { stop_reason:
		    "end_turn" }, usage: { output_tokens: 9 } }),
		chunk({ type: "message_stop",
		    "amazon-bedrock-invocationMetrics": { inputTokenCount: 20,
		    outputTokenCount: 9 } }),
	];
	return Buffer.concat(frames.map((f) => Buffer.from(f)));
}

const server = http.createServer((req, res) => {
	const parts = [];
	req.on("data", (d) => parts.push(d));
	req.on("end", async () => {
		const body = Buffer.concat(parts).toString("utf8");
		let why;
		try {
			why = await verify(req, body);
		} catch (e) {
			why = "the verifier failed: " + e;
		}
		fs.appendFileSync(logfile, why ? "signature bad: " + why + "\n" :
		    "signature ok\n");
		if (why) {
			res.writeHead(403, { "Content-Type": "application/json",
			    "x-amzn-ErrorType": "InvalidSignatureException" });
			res.end(JSON.stringify({ message: "The request signature " +
			    "we calculated does not match the signature you " +
			    "provided." }));
			return;
		}
		res.writeHead(200, { "Content-Type":
		    "application/vnd.amazon.eventstream" });
		const all = answer();
		for (let i = 0; i < all.length; i += 5)
			res.write(all.subarray(i, i + 5));
		res.end();
	});
});
server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portfile + ".tmp", String(server.address().port));
	fs.renameSync(portfile + ".tmp", portfile);
});
