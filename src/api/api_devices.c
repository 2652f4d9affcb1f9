/* The audio devices (spectro_job.h): the list, the lookup the settings device and
 * output_device make, and PortAudio held for a caller that drives it itself (the window's
 * playback): the engine's lookup and PortAudio lifetime (source.h, source_pa.h), which the
 * microphone uses too. */
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "source_pa.h"

static void device_out(const source_device_info *d, spectro_device_info *o)
{
    memset(o, 0, sizeof *o);
    o->index = d->index;
    memcpy(o->name, d->name, sizeof o->name);
    memcpy(o->host_api, d->host_api, sizeof o->host_api);
    o->max_input_channels = d->max_input_channels;
    o->max_output_channels = d->max_output_channels;
    o->default_rate = d->default_rate;
    o->is_default_input = d->is_default;
    o->is_default_output = d->is_default_output;
}

int spectro_list_devices(spectro_device_info *out, int max, int *count, spectro_error *err)
{
    enum { MAX_DEVICES = 256 };
    source_device_info *dev;
    sp_errinfo ei = {{0}};
    int n = 0, code;
    if (!count || max < 0 || (max > 0 && !out))
        return api_fail(err, SPECTRO_EINVAL, "count is NULL, or out is NULL with max > 0");
    if (!(dev = calloc(MAX_DEVICES, sizeof *dev)))
        return api_fail(err, SPECTRO_ENOMEM, "out of memory");
    code = source_list_devices(dev, MAX_DEVICES, &n, &ei);
    for (int i = 0; code == SP_OK && i < n && i < max && i < MAX_DEVICES; i++)
        device_out(&dev[i], &out[i]);
    free(dev);
    if (code != SP_OK)
        return api_from_engine(err, code, &ei);
    *count = n;
    return SPECTRO_OK;
}

int spectro_find_device(const char *want, int output, spectro_device_info *out, spectro_error *err)
{
    source_device_info d;
    sp_errinfo ei = {{0}};
    int code;
    if (!out)
        return api_fail(err, SPECTRO_EINVAL, "spectro_find_device: out is NULL");
    if (output != 0 && output != 1)
        return api_fail(err, SPECTRO_EINVAL, "output %d: 0 (an input) or 1 (an output)", output);
    if ((code = source_pa_acquire(&ei)) != SP_OK)
        return api_from_engine(err, code, &ei);
    code = source_pa_find_device(want, output, &d, &ei);
    source_pa_release();
    if (code != SP_OK)
        return api_from_engine(err, code, &ei);
    device_out(&d, out);
    return SPECTRO_OK;
}

int spectro_audio_acquire(spectro_error *err)
{
    sp_errinfo ei = {{0}};
    int code = source_pa_acquire(&ei);
    return code == SP_OK ? SPECTRO_OK : api_from_engine(err, code, &ei);
}

void spectro_audio_release(void)
{
    source_pa_release();
}

int spectro_audio_quiet_begin(void)
{
    return sp_stderr_mute();
}

void spectro_audio_quiet_end(int token)
{
    sp_stderr_unmute(token);
}
