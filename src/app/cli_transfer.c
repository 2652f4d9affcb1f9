#include "cli_transfer.h"

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

int cli_transfer_parse(cli_options *o, const cli_option *row, const char *name, const char *val, sp_errinfo *ei)
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

static int compare_check(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    const char *other;
    int made = 0;
    if (o->n_inputs != 2 || o->files_from || o->shard_n)
        return sp_fail(ei, SP_EINVAL, "--compare: give two FILEs, A and B");
    other = cli_given(o, "transfer")       ? "--transfer"
            : a->measure.reference         ? "--reference"
            : a->channel != STFT_CHANNEL_MIX ? "--channel"
            : a->measure.bands             ? "--bands"
            : a->measure.psd               ? "--psd"
            : o->view                      ? "--view"
            : a->realtime                  ? "--realtime"
                                           : NULL;
    if (other)
        return sp_fail(ei, SP_EINVAL, "%s: not with --compare", other);
    for (int i = 0; i < a->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(a->outputs[i].kind);
        if (!k->compared)
            return sp_fail(ei, SP_EINVAL, "%s: not with --compare (give --png, or --average MODE with --dump)",
                           k->option);
        if (strcmp(k->name, "dump") == 0 && !cli_given(o, "average"))
            return sp_fail(ei, SP_EINVAL, "--dump: with --compare, give --average MODE (the averaged spectra and "
                                          "their difference)");
        a->outputs[i].kind = sink_kind_find(k->compared)->name;
        made++;
    }
    if (!made && cli_given(o, "average"))
        return sp_fail(ei, SP_EINVAL, "--average: with --compare, give --dump (the window shows the spectrograms)");
    /* no output: the window shows A over B (view_compare.c) */
    /* the mode stays in measure.average; the compare kinds average themselves, so the
     * --average check (check_measure) has nothing left to turn */
    o->given[cli_row_find("average") - cli_rows] = 0;
    o->batch = 0;   /* one run of a pair, not two files */
    a->measure.compare = 1;
    a->measure.reference = o->inputs[0];
    a->measure.compared = o->inputs[1];
    a->measure.transfer_ref = a->measure.transfer_meas = -1; /* each file's mix */
    a->input = o->inputs[1];
    a->channel = STFT_CHANNEL_ALL;
    return SP_OK;
}

int cli_transfer_check(cli_options *o, sp_errinfo *ei)
{
    analyze_config *a = &o->an;
    int made = 0;
    if (a->measure.resample && !a->measure.compare)
        return sp_fail(ei, SP_EINVAL, "--resample: only with --compare (B to A's rate)");
    if (a->measure.compare)
        return compare_check(o, ei);
    if (!cli_given(o, "transfer") && a->measure.reference)
        return sp_fail(ei, SP_EINVAL, "--reference: only with --transfer (REF a channel of it, MEAS of the input)");
    if (!cli_given(o, "transfer"))
        return a->measure.remove_delay ? sp_fail(ei, SP_EINVAL, "--remove-delay: only with --transfer")
                                       : SP_OK;
    if (a->measure.reference && (!a->input || a->realtime))
        return sp_fail(ei, SP_EINVAL, "--reference: the input must be a file (not the microphone, nor --realtime)");
    if (!a->measure.reference && a->measure.transfer_ref == a->measure.transfer_meas)
        return sp_fail(ei, SP_EINVAL, "--transfer %d:%d: the reference and the measured channel are the same",
                       a->measure.transfer_ref, a->measure.transfer_meas);
    if (a->channel != STFT_CHANNEL_MIX)
        return sp_fail(ei, SP_EINVAL, "--channel: not with --transfer (it names its two channels)");
    if (cli_given(o, "average") || a->measure.bands || a->measure.psd || o->view)
        return sp_fail(ei, SP_EINVAL, "%s: not with --transfer (the transfer function is averaged over every frame)",
                       cli_given(o, "average") ? "--average"
                       : a->measure.bands      ? "--bands"
                       : a->measure.psd        ? "--psd"
                                               : "--view");
    for (int i = 0; i < a->n_outputs; i++) {
        const sink_kind *k = sink_kind_find(a->outputs[i].kind);
        if (!k->transferred)
            return sp_fail(ei, SP_EINVAL, "%s: not with --transfer (give --dump or --png for the transfer function)",
                           k->option);
        a->outputs[i].kind = sink_kind_find(k->transferred)->name;
        made += strcmp(a->outputs[i].kind, "transfer-png") == 0 ? 2 : 1;
    }
    /* no output: the window's transfer view (view_transfer.c), which takes --remove-delay */
    if (a->measure.remove_delay && made == 1)
        return sp_fail(ei, SP_EINVAL, "--remove-delay: only with --png (the dump's phase keeps the delay)");
    a->measure.transfer = 1;
    a->channel = STFT_CHANNEL_ALL;
    return SP_OK;
}
