#include "job_transfer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "stft.h"

/* A channel index at *p (digits only), advancing *p past it; -1 when there is none. */
static long channel_at(const char **p)
{
    char *end;
    long v;
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    v = strtol(*p, &end, 10);
    if (errno || v >= SOURCE_MAX_CHANNELS)
        return -1;
    *p = end;
    return v;
}

int job_transfer_parse(job *o, const job_row *row, const char *name, const char *val, sp_errinfo *ei)
{
    const char *p = val;
    long ref = channel_at(&p), meas = -1;
    (void)o;
    if (ref >= 0 && *p == ':') {
        p++;
        meas = channel_at(&p);
    }
    if (ref < 0 || meas < 0 || *p)
        return sp_fail(ei, SP_EINVAL, "%s %s: expected REF:MEAS, two channel indices of the input from 0, e.g. 0:1",
                       name, val);
    *(int *)(void *)((char *)o + row->field) = (int)ref;
    *(int *)(void *)((char *)o + row->also[0]) = (int)meas;
    return SP_OK;
}

static int compare_check(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    const char *other;
    int made = 0;
    if (o->n_inputs != 2 || o->files_from || o->shard_n)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("compare") ": give two FILEs, A and B");
    other = job_given(o, "transfer")       ? SP_FIELD("transfer")
            : a->measure.reference         ? SP_FIELD("reference")
            : a->channel != STFT_CHANNEL_MIX ? SP_FIELD("channel")
            : a->measure.bands             ? SP_FIELD("bands")
            : a->measure.psd               ? SP_FIELD("psd")
            : o->view                      ? SP_FIELD("view")
            : a->realtime                  ? SP_FIELD("realtime")
                                           : NULL;
    if (other)
        return sp_fail(ei, SP_EINVAL, "%s: not with " SP_FIELD("compare"), other);
    for (int i = 0; i < a->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(a->outputs[i].kind);
        if (!k->compared)
            return sp_fail(ei, SP_EINVAL, "%s: not with " SP_FIELD("compare") " (give " SP_FIELD("png") ", or "
                                          SP_FIELD("average") " MODE with " SP_FIELD("dump") ")",
                           k->option);
        if (strcmp(k->name, "dump") == 0 && !job_given(o, "average"))
            return sp_fail(ei, SP_EINVAL, SP_FIELD("dump") ": with " SP_FIELD("compare") ", give "
                                                   SP_FIELD("average") " MODE (the averaged spectra and "
                                          "their difference)");
        a->outputs[i].kind = sink_kind_find(k->compared)->name;
        made++;
    }
    if (!made && job_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("average") ": with " SP_FIELD("compare") ", give " SP_FIELD("dump")
                                               " (the window shows the spectrograms)");
    /* no output: the window shows A over B (view_compare.c) */
    /* the mode stays in measure.average; the compare kinds average themselves, so the
     * --average check (check_measure) has nothing left to turn */
    o->given[job_row_find("average") - job_rows] = 0;
    o->batch = 0;   /* one run of a pair, not two files */
    a->measure.compare = 1;
    a->measure.reference = o->inputs[0];
    a->measure.compared = o->inputs[1];
    a->measure.transfer_ref = a->measure.transfer_meas = -1; /* each file's mix */
    a->input = o->inputs[1];
    a->channel = STFT_CHANNEL_ALL;
    return SP_OK;
}

int job_transfer_check(job *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int made = 0;
    if (a->measure.resample && !a->measure.compare)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("resample") ": only with " SP_FIELD("compare") " (B to A's rate)");
    if (a->measure.compare)
        return compare_check(o, ei);
    if (!job_given(o, "transfer") && a->measure.reference)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("reference") ": only with " SP_FIELD("transfer") " (REF a channel of "
                                               "it, MEAS of the input)");
    if (!job_given(o, "transfer"))
        return a->measure.remove_delay ? sp_fail(ei, SP_EINVAL, SP_FIELD("remove_delay") ": only with "
                                                                         SP_FIELD("transfer"))
                                       : SP_OK;
    if (a->measure.reference && (!a->input || a->realtime))
        return sp_fail(ei, SP_EINVAL, SP_FIELD("reference") ": the input must be a file (not the microphone, nor "
                                               SP_FIELD("realtime") ")");
    if (!a->measure.reference && a->measure.transfer_ref == a->measure.transfer_meas)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("transfer") " %d:%d: the reference and the measured channel are the "
                                               "same",
                       a->measure.transfer_ref, a->measure.transfer_meas);
    if (a->channel != STFT_CHANNEL_MIX)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("channel") ": not with " SP_FIELD("transfer") " (it names its two "
                                               "channels)");
    if (job_given(o, "average") || a->measure.bands || a->measure.psd || o->view)
        return sp_fail(ei, SP_EINVAL, "%s: not with " SP_FIELD("transfer") " (the transfer function is averaged over "
                                      "every frame)",
                       job_given(o, "average") ? SP_FIELD("average")
                       : a->measure.bands      ? SP_FIELD("bands")
                       : a->measure.psd        ? SP_FIELD("psd")
                                               : SP_FIELD("view"));
    for (int i = 0; i < a->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(a->outputs[i].kind);
        if (!k->transferred)
            return sp_fail(ei, SP_EINVAL, "%s: not with " SP_FIELD("transfer") " (give " SP_FIELD("dump") " or "
                                          SP_FIELD("png") " for the transfer function)",
                           k->option);
        a->outputs[i].kind = sink_kind_find(k->transferred)->name;
        made += strcmp(a->outputs[i].kind, "transfer-png") == 0 ? 2 : 1;
    }
    /* no output: the window's transfer view (view_transfer.c), which takes remove_delay */
    if (a->measure.remove_delay && made == 1)
        return sp_fail(ei, SP_EINVAL, SP_FIELD("remove_delay") ": only with " SP_FIELD("png") " (the dump's phase "
                                               "keeps the delay)");
    a->measure.transfer = 1;
    a->channel = STFT_CHANNEL_ALL;
    return SP_OK;
}
