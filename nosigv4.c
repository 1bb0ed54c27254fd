/* See LICENSE file for copyright and license details. */
/* nosigv4.c: sigv4.c's stand-in in a build without AWS's signatures
 * (make tiny): the bedrock row with AWS keys says it is not in this
 * build and exits 2, as a config error, at the request it would sign. */
#include <stdlib.h>

#include "util.h"
#include "sigv4.h"

void
sigv4sign(const Sigv4 *k, const Sigv4req *r, Sigv4hdr *out)
{
	(void)k;
	(void)r;
	(void)out;
	warn("bedrock: AWS's signatures (AWS_ACCESS_KEY_ID) are not in this "
	     "build");
	exit(2);
}

void
sigv4free(Sigv4hdr *h)
{
	buffree(&h->token);
	buffree(&h->auth);
}
