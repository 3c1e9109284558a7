/*
 * nbtw.h - a small streaming NBT writer (slimetool's world generator).
 *
 * Calls append tags to w->buf in order: open a compound with nw_compound
 * and close it with nw_end; a list needs its element count up front and
 * its elements as payloads (nw_str, nw_double_v, ..., or compound bodies
 * closed by nw_end). The first allocation failure sticks; nw_finish
 * reports it and checks the whole document.
 */
#ifndef SLIMETOOL_NBTW_H
#define SLIMETOOL_NBTW_H

#include "sl_common.h"

typedef struct nbtw
{
	sl_buf		buf;
	int			failed;
	sl_err		err;
} nbtw;

void		nw_raw(nbtw *w, const void *p, size_t n);
void		nw_be(nbtw *w, uint64_t v, int bytes);
void		nw_str(nbtw *w, const char *s);
void		nw_tag(nbtw *w, int type, const char *name);
void		nw_byte(nbtw *w, const char *name, int v);
void		nw_short(nbtw *w, const char *name, int v);
void		nw_int(nbtw *w, const char *name, int32_t v);
void		nw_long(nbtw *w, const char *name, int64_t v);
void		nw_float_v(nbtw *w, float v);
void		nw_double_v(nbtw *w, double v);
void		nw_float(nbtw *w, const char *name, float v);
void		nw_double(nbtw *w, const char *name, double v);
void		nw_string(nbtw *w, const char *name, const char *v);
void		nw_compound(nbtw *w, const char *name);
void		nw_end(nbtw *w);
void		nw_list(nbtw *w, const char *name, int elem, uint32_t count);
void		nw_byte_array(nbtw *w, const char *name, const uint8_t *v, uint32_t n);
void		nw_int_array(nbtw *w, const char *name, const int32_t *v, uint32_t n);
void		nw_long_array(nbtw *w, const char *name, const uint64_t *v, uint32_t n);

/* Report a sticky failure, then check the document (one root, no trailing bytes). */
int			nw_finish(nbtw *w, const char *what);

#endif
