/* cli: argv onto a job. The options are the library's settings (spectro_setting_info_at),
 * spelled with '-' for '_', plus the program's own rows below; the help texts, lists and
 * defaults are the library's. */
#include "cli.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The program's own options, and where --help lists them: before the setting `before`
 * (NULL: at the end). */
static const struct {
    const char *longname;
    char shortname;
    const char *before;
    const char *help;
} own[] = {
    {.longname = "list-devices", .before = "device",
     .help = "list the audio devices, inputs and outputs (direction in, out or in+out), and exit"},
    {.longname = "help", .shortname = 'h', .help = "this text"},
    {.longname = "version", .shortname = 'V', .help = "the version"},
};
enum { OWN_COUNT = sizeof own / sizeof own[0] };

/* The settings' short forms. */
static const struct {
    char shortname;
    const char *setting;
} shorts[] = {{'n', "fft_size"}, {'w', "window"}, {'c', "channel"}, {'b', "backend"},
              {'o', "dump"},     {'q', "quiet"},  {'v', "verbose"}};

/* The library's settings by index: their names, values and options, read once. */
enum { MAX_SETTINGS = 128 };
static struct {
    const char *name, *alias, *value;
    char option[48]; /* "--fft-size" */
} settings[MAX_SETTINGS];
static int n_settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* read_settings is running on this thread: the texts it reads are rendered with the namer,
 * which must not wait for it (their text is not kept). */
static _Thread_local int reading;

static void read_settings(void)
{
    spectro_setting_info *info = malloc(sizeof *info);
    int n = spectro_setting_count();
    reading = 1;
    for (int i = 0; info && i < n && i < MAX_SETTINGS; i++) {
        if (spectro_setting_info_at(i, info) != SPECTRO_OK)
            break;
        settings[i].name = info->name;
        settings[i].alias = info->alias;
        settings[i].value = info->value;
        snprintf(settings[i].option, sizeof settings[i].option, "--%s", info->name);
        for (char *p = settings[i].option + 2; *p; p++)
            *p = *p == '_' ? '-' : *p;
        n_settings = i + 1;
    }
    reading = 0;
    free(info);
}

static int setting_of(const char *name)
{
    pthread_once(&settings_once, read_settings);
    for (int i = 0; i < n_settings; i++)
        if (strcmp(settings[i].name, name) == 0 || (settings[i].alias && strcmp(settings[i].alias, name) == 0))
            return i;
    return -1;
}

/* The program's own options as the library's help names them ("list_devices"). */
static const char *const own_fields[][2] = {{"list_devices", "--list-devices"}, {"help", "--help"},
                                            {"version", "--version"}};

const char *cli_field_option(const char *field)
{
    int i = reading ? -1 : setting_of(field);
    for (size_t k = 0; i < 0 && k < sizeof own_fields / sizeof own_fields[0]; k++)
        if (strcmp(field, own_fields[k][0]) == 0)
            return own_fields[k][1];
    return i < 0 ? NULL : settings[i].option;
}

/* The setting whose option is --long (len bytes of it), or -1. */
static int setting_of_option(const char *longname, size_t len)
{
    pthread_once(&settings_once, read_settings);
    for (int i = 0; i < n_settings; i++)
        if (strlen(settings[i].option + 2) == len && strncmp(settings[i].option + 2, longname, len) == 0)
            return i;
    return -1;
}

static int fail(spectro_error *err, const char *fmt, const char *a)
{
    if (err) {
        err->code = SPECTRO_EINVAL;
        snprintf(err->message, sizeof err->message, fmt, a);
    }
    return SPECTRO_EINVAL;
}

/* An optional value is taken from the next argument only when it reads as one: a number or
 * "auto" (a file named "1000" is then written ./1000). */
static int optional_value_at(const char *arg)
{
    char *end;
    double v;
    if (strcmp(arg, "auto") == 0)
        return 1;
    v = strtod(arg, &end);
    return end != arg && !*end && isfinite(v);
}

/* The program's own option `k` (an index of own[]). */
static void own_option(cli_program *p, int k)
{
    if (strcmp(own[k].longname, "help") == 0)
        p->help = 1;
    else if (strcmp(own[k].longname, "version") == 0)
        p->version = 1;
    else
        p->list_devices = 1;
}

/* argv[*i]: the setting it names (*at, or -1 for the program's own, *own_k), with its value
 * from "--x=V", "-xV" or the next argument (which *i then steps over). */
static int find_option(int argc, char **argv, int *i, int *at, int *own_k, const char **val, spectro_error *err)
{
    const char *arg = argv[*i];
    *val = NULL;
    *at = *own_k = -1;
    if (arg[1] == '-') {
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        for (int k = 0; k < OWN_COUNT; k++)
            if (strlen(own[k].longname) == len && strncmp(arg + 2, own[k].longname, len) == 0)
                *own_k = k;
        if (*own_k < 0 && (*at = setting_of_option(arg + 2, len)) < 0) {
            char name[48];
            snprintf(name, sizeof name, "--%.*s", (int)(len < 40 ? len : 40), arg + 2);
            return fail(err, "%s: unknown option (see spectro --help)", name);
        }
        if (eq && (*own_k >= 0 || !settings[*at].value)) {
            char name[48];
            snprintf(name, sizeof name, "--%.*s", (int)(len < 40 ? len : 40), arg + 2);
            return fail(err, "%s: takes no value", name);
        }
        *val = eq ? eq + 1 : NULL;
    } else {
        for (int k = 0; k < OWN_COUNT; k++)
            if (own[k].shortname && own[k].shortname == arg[1])
                *own_k = k;
        for (size_t k = 0; *own_k < 0 && k < sizeof shorts / sizeof shorts[0]; k++)
            if (shorts[k].shortname == arg[1])
                *at = setting_of(shorts[k].setting);
        if ((*own_k < 0 && *at < 0) || (arg[2] && (*own_k >= 0 || !settings[*at].value)))
            return fail(err, "%s: unknown option (see spectro --help)", arg);
        if (arg[2])
            *val = arg + 2;
    }
    if (*own_k >= 0)
        return SPECTRO_OK;
    if (settings[*at].value && settings[*at].value[0] == '[' && !*val) {
        if (*i + 1 < argc && optional_value_at(argv[*i + 1]))
            *val = argv[++*i];
    } else if (settings[*at].value && !*val) {
        if (*i + 1 >= argc)
            return fail(err, "%s: missing value", settings[*at].option);
        *val = argv[++*i];
    }
    return SPECTRO_OK;
}

/* A message that starts with the option's long form ("--backend gpu: ...") names it as the
 * user typed it ("-b gpu: ..."). */
static void as_typed(spectro_error *err, const char *option, const char *arg)
{
    size_t len = strlen(option);
    char rest[sizeof err->message];
    if (!err || arg[1] == '-' || strncmp(err->message, option, len) != 0)
        return;
    snprintf(rest, sizeof rest, "%s", err->message + len);
    snprintf(err->message, sizeof err->message, "-%c%.*s", arg[1], (int)sizeof err->message - 3, rest);
}

int cli_parse(int argc, char **argv, spectro_job *job, cli_program *p, spectro_error *err)
{
    int only_files = 0, code;
    memset(p, 0, sizeof *p);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        int at, own_k;
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if ((code = spectro_job_add_input(job, arg, err)) != SPECTRO_OK)
                return code;
            if (p->n_inputs++ == 0)
                p->input = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        if ((code = find_option(argc, argv, &i, &at, &own_k, &val, err)) != SPECTRO_OK)
            return code;
        if (own_k >= 0) {
            own_option(p, own_k);
            continue;
        }
        if ((code = spectro_job_set(job, settings[at].name, val, err)) != SPECTRO_OK) {
            as_typed(err, settings[at].option, arg);
            return code;
        }
        p->quiet |= strcmp(settings[at].name, "quiet") == 0;
        p->verbose |= strcmp(settings[at].name, "verbose") == 0;
        p->batch |= strcmp(settings[at].name, "files_from") == 0 || strcmp(settings[at].name, "shard") == 0;
    }
    p->batch |= p->n_inputs > 1;
    return SPECTRO_OK;
}

/* ---- the options as data: the settings with the program's rows among them --------------- */

int cli_option_count(void)
{
    return spectro_setting_count() + OWN_COUNT;
}

/* The i-th option in --help's order: the setting index (*at) or the program's row (*own_k). */
static void option_at(int i, int *at, int *own_k)
{
    int n = spectro_setting_count(), seen = 0;
    *at = *own_k = -1;
    pthread_once(&settings_once, read_settings);
    for (int s = 0; s <= n; s++) {
        for (int k = 0; k < OWN_COUNT; k++)
            if (s < n ? own[k].before && strcmp(own[k].before, settings[s].name) == 0 : !own[k].before) {
                if (seen++ == i) {
                    *own_k = k;
                    return;
                }
            }
        if (s < n && seen++ == i) {
            *at = s;
            return;
        }
    }
}

int cli_option_doc_at(int i, cli_option_doc *out)
{
    spectro_setting_info *info;
    int at, own_k;
    if (i < 0 || i >= cli_option_count() || !out)
        return SPECTRO_EINVAL;
    option_at(i, &at, &own_k);
    memset(out, 0, sizeof *out);
    if (own_k >= 0) {
        out->longname = own[own_k].longname;
        out->shortname = own[own_k].shortname;
        snprintf(out->text, sizeof out->text, "%s", own[own_k].help);
        out->kind = 'n';
        return SPECTRO_OK;
    }
    if (!(info = malloc(sizeof *info)) || spectro_setting_info_at(at, info) != SPECTRO_OK) {
        free(info);
        return SPECTRO_ENOMEM;
    }
    out->longname = settings[at].option + 2;
    for (size_t k = 0; k < sizeof shorts / sizeof shorts[0]; k++)
        if (strcmp(shorts[k].setting, info->name) == 0)
            out->shortname = shorts[k].shortname;
    out->value = info->value;
    out->group = info->group;
    memcpy(out->section, info->section, sizeof out->section);
    memcpy(out->text, info->help, sizeof out->text);
    out->kind = info->kind;
    memcpy(out->values, info->values, sizeof out->values);
    free(info);
    return SPECTRO_OK;
}
