/* See LICENSE file for copyright and license details. */
/* test/sigv4.c: unit tests of sigv4.c against signatures made by AWS's
 * own signer (@smithy/signature-v4 5.x, applyChecksum off): AWS's
 * get-vanilla example, and a Bedrock request with a session token, a
 * model id whose ':' was encoded to be sent, and a query to sort. */
#include <string.h>

#include "../util.h"
#include "../sigv4.h"
#include "t.h"

static const char secret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

int
main(void)
{
	Sigv4 k = { "AKIDEXAMPLE", secret, NULL, "us-east-1", "service" };
	Sigv4req r = { 0 };
	Sigv4hdr h;
	Span body;
	Buf canon = { 0 };
	const char *path;

	r.method = "GET";
	r.host = "example.amazonaws.com";
	r.path = "/";
	r.pathlen = 1;
	r.now = 1440938160;	/* 2015-08-30T12:36:00Z */
	sigv4sign(&k, &r, &h);
	T(!strcmp(h.date, "X-Amz-Date: 20150830T123600Z"), "the date: %s",
	  h.date);
	T(!h.token.len, "no session, no token header");
	T(!strcmp(bstr(&h.auth), "Authorization: AWS4-HMAC-SHA256 "
	  "Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
	  "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf19426"
	  "76e86291e8372ff2a2260956d9b8aae1d763fbf31"), "get-vanilla: %s",
	  bstr(&h.auth));
	sigv4free(&h);

	k.token = "tok/en+=";
	k.region = "us-west-2";
	k.service = "bedrock";
	path = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/"
	       "invoke-with-response-stream?b=x%20y&a=2";
	r.method = "POST";
	r.host = "bedrock-runtime.us-west-2.amazonaws.com";
	r.path = path;
	r.pathlen = strlen(path);
	body.p = "{\"anthropic_version\":\"bedrock-2023-05-31\"}";
	body.len = strlen(body.p);
	r.body = &body;
	r.nbody = 1;
	r.now = 1795835356;	/* 2026-11-28T03:09:16Z */
	sigv4sign(&k, &r, &h);
	T(!strcmp(bstr(&h.token), "X-Amz-Security-Token: tok/en+="),
	  "the session token's header");
	T(!strcmp(bstr(&h.auth), "Authorization: AWS4-HMAC-SHA256 "
	  "Credential=AKIDEXAMPLE/20261128/us-west-2/bedrock/aws4_request, "
	  "SignedHeaders=host;x-amz-date;x-amz-security-token, Signature="
	  "c93b237c54ec4d2daa2a301ea6881b21cc60a9e6aba04c7a520407205cbfd1f3"),
	  "bedrock, a session, %%3A, a query: %s", bstr(&h.auth));
	sigv4free(&h);
	sigv4canon(&r, "20261128T030916Z", NULL, &canon);
	T(strstr(bstr(&canon), "\n/model/us.anthropic.claude-sonnet-4-5-"
	  "20250929-v1%253A0/invoke-with-response-stream\na=2&b=x%20y\n") !=
	  NULL, "the path encoded twice, the query sorted");
	buffree(&canon);
	return tfail != 0;
}
