/* See LICENSE file for copyright and license details. */
/* sandbox.h: what tool processes may do */

typedef int (*Jobfn)(void *arg, Buf *out);

int sandboxinit(Toolenv *e, Buf *why);
int sandboxplan(const Toolenv *e, int flags, int mode);
void sandboxsay(Toolenv *e);
int sandboxheld(const Toolenv *e);
int sandboxruleset(const Toolenv *e);
int sandboxenter(const Toolenv *e, int rs);
char *sandboxlanding(const char *path);
int sandboxwalk(const char *from, const char *path, const char **last);
int sandboxwritable(const Toolenv *e, const char *tool, const char *path,
                    Buf *out);
int sandboxrun(const Toolenv *e, Jobfn fn, void *arg, Buf *out);
