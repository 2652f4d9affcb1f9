/* spectro-gendoc: the documentation made from spectro's own tables at build time, so that
 * it cannot drift from the program: the man page (the options table, the window's keys,
 * filled into a troff template), and bash and zsh completion (options, the names each
 * list takes, files, audio devices). Not installed; the build runs it.
 *
 *   spectro-gendoc man TEMPLATE VERSION DATE OUT    (OUT: spectro.1)
 *   spectro-gendoc bash OUT                         (bash-completion's file for the command)
 *   spectro-gendoc zsh OUT                          (_spectro)
 *
 * The template's lines @OPTIONS@ and @KEYS@ are replaced by the generated sections'
 * bodies, @VERSION@ and @DATE@ anywhere by the arguments. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "view.h"

/* Text as troff: backslashes and hyphens escaped, the window's arrows and minus as troff
 * glyphs, a line that would start with a control character protected; "\n" in the text
 * becomes a line break (.br). */
static void troff_text(FILE *f, const char *s)
{
    static const struct {
        const char *utf8, *troff;
    } glyphs[] = {{"\xe2\x86\x90", "\\(<-"}, {"\xe2\x86\x92", "\\(->"}, {"\xe2\x86\x91", "\\(ua"},
                  {"\xe2\x86\x93", "\\(da"}, {"\xe2\x88\x92", "\\(mi"}};
    int bol = 1;
    while (*s) {
        size_t g, ng = sizeof glyphs / sizeof glyphs[0];
        for (g = 0; g < ng; g++)
            if (strncmp(s, glyphs[g].utf8, strlen(glyphs[g].utf8)) == 0)
                break;
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        bol = 0;
        if (g < ng) {
            fputs(glyphs[g].troff, f);
            s += strlen(glyphs[g].utf8);
            continue;
        }
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else if (*s == '\n') {
            fputs("\n.br\n", f);
            bol = 1;
        } else
            fputc(*s, f);
        s++;
    }
}

/* One .TP entry an option: "\-n, \-\-fft\-size N" in bold/italic, then its help. */
static void man_options(FILE *f)
{
    for (int i = 0; i < cli_option_count(); i++) {
        cli_option_doc d;
        cli_option_doc_at(i, &d);
        if (*d.section) {
            fputs(".SS ", f);
            troff_text(f, d.section);
            fputc('\n', f);
        }
        fputs(".TP\n", f);
        if (d.shortname)
            fprintf(f, "\\fB\\-%c\\fR, ", d.shortname);
        fputs("\\fB\\-\\-", f);
        troff_text(f, d.longname);
        fputs("\\fR", f);
        if (d.value) {
            fputs(" \\fI", f);
            troff_text(f, d.value);
            fputs("\\fR", f);
        }
        fputc('\n', f);
        troff_text(f, d.text);
        fputc('\n', f);
    }
}

static void man_keys(FILE *f)
{
    for (int i = 0; i < view_key_count(); i++) {
        fputs(".TP\n.B ", f);
        troff_text(f, view_key(i));
        fputc('\n', f);
        troff_text(f, view_key_action(i));
        fputc('\n', f);
    }
}

/* Copies the template, filling in the generated parts. */
static int man(const char *template, const char *version, const char *date)
{
    char line[4096];
    FILE *t = fopen(template, "r");
    if (!t) {
        perror(template);
        return 1;
    }
    while (fgets(line, sizeof line, t)) {
        if (strcmp(line, "@OPTIONS@\n") == 0) {
            man_options(stdout);
            continue;
        }
        if (strcmp(line, "@KEYS@\n") == 0) {
            man_keys(stdout);
            continue;
        }
        for (const char *p = line; *p; p++) {
            if (strncmp(p, "@VERSION@", 9) == 0) {
                fputs(version, stdout);
                p += 8;
            } else if (strncmp(p, "@DATE@", 6) == 0) {
                fputs(date, stdout);
                p += 5;
            } else {
                putchar(*p);
            }
        }
    }
    fclose(t);
    return ferror(stdout) ? 1 : 0;
}

/* "--fft-size -n --hop ..." every spelling of every option. */
static void all_spellings(FILE *f)
{
    for (int i = 0; i < cli_option_count(); i++) {
        cli_option_doc d;
        cli_option_doc_at(i, &d);
        fprintf(f, "%s--%s", i ? " " : "", d.longname);
        if (d.shortname)
            fprintf(f, " -%c", d.shortname);
    }
}

static const char *const audio_glob = "wav|wave|flac|ogg|oga|opus|aif|aiff|aifc|au|snd|caf|w64|rf64|mp3|voc";

static int bash(void)
{
    printf("# bash completion for spectro (made by spectro-gendoc from the program's tables)\n"
           "_spectro()\n{\n"
           "    local cur prev\n"
           "    cur=${COMP_WORDS[COMP_CWORD]}\n"
           "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
           "    case $prev in\n");
    for (int i = 0; i < cli_option_count(); i++) {
        cli_option_doc d;
        cli_option_doc_at(i, &d);
        if (!d.value)
            continue;
        printf("    --%s", d.longname);
        if (d.shortname)
            printf("|-%c", d.shortname);
        if (d.kind == 'l')
            printf(")\n        COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;\n", d.values);
        else if (d.kind == 'f')
            printf(")\n        COMPREPLY=($(compgen -f -- \"$cur\")); compopt -o filenames 2>/dev/null; return ;;\n");
        else if (d.kind == 'd')
            printf(")\n        local IFS=$'\\n'\n"
                   "        COMPREPLY=($(compgen -W \"$(spectro --list-devices 2>/dev/null |"
                   " sed -n 's/^ *[0-9][0-9]*  \\(.\\{1,40\\}\\).*/\\1/p' | sed 's/ *$//')\" -- \"$cur\"))\n"
                   "        return ;;\n");
        else
            printf(")\n        return ;;\n");
    }
    printf("    esac\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W '");
    all_spellings(stdout);
    printf("' -- \"$cur\"))\n"
           "        return\n"
           "    fi\n"
           "    COMPREPLY=($(compgen -f -X '!*.@(%s|%s)' -- \"$cur\") $(compgen -d -- \"$cur\"))\n"
           "    compopt -o filenames 2>/dev/null\n"
           "}\n"
           "shopt -s extglob 2>/dev/null\n"
           "complete -F _spectro spectro\n",
           audio_glob, "WAV|WAVE|FLAC|OGG|OPUS|AIF|AIFF|AU|CAF|W64|MP3");
    return ferror(stdout) ? 1 : 0;
}

/* zsh's _arguments spec text: brackets and colons in help are escaped. */
static void zsh_text(const char *s)
{
    for (; *s; s++) {
        if (*s == '[' || *s == ']' || *s == ':' || *s == '\\' || *s == '\'')
            printf("%s", *s == '\'' ? "'\\''" : "\\");
        if (*s == '\n')
            putchar(' ');
        else if (*s != '\'')
            putchar(*s);
    }
}

static int zsh(void)
{
    printf("#compdef spectro\n"
           "# zsh completion for spectro (made by spectro-gendoc from the program's tables)\n"
           "_spectro_devices() {\n"
           "  local -a devs\n"
           "  devs=(${(f)\"$(spectro --list-devices 2>/dev/null | sed -n 's/^ *[0-9][0-9]*  \\(.\\{1,40\\}\\).*/\\1/p' "
           "| sed 's/ *$//')\"})\n"
           "  _describe 'audio input device' devs\n"
           "}\n"
           "_arguments -s \\\n");
    for (int i = 0; i < cli_option_count(); i++) {
        cli_option_doc d;
        char first[96];
        cli_option_doc_at(i, &d);
        if (d.shortname)
            snprintf(first, sizeof first, "'(-%c --%s)'{-%c,--%s}'", d.shortname, d.longname, d.shortname,
                     d.longname);
        else
            snprintf(first, sizeof first, "'--%s", d.longname);
        printf("  %s[", first);
        zsh_text(d.text);
        printf("]");
        if (d.value) {
            printf(":");
            zsh_text(d.value);
            if (d.kind == 'l')
                printf(":(%s)", d.values);
            else if (d.kind == 'f')
                printf(":_files");
            else if (d.kind == 'd')
                printf(":_spectro_devices");
            else
                printf(": ");
        }
        printf("' \\\n");
    }
    printf("  '*:audio file:_files -g \"*.(#i)(%s)(-.)\"'\n", audio_glob);
    return ferror(stdout) ? 1 : 0;
}

/* The output goes to OUT (the last argument): stdout reopened there. */
static int to_file(const char *path)
{
    if (!freopen(path, "w", stdout)) {
        perror(path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc == 6 && strcmp(argv[1], "man") == 0)
        rc = to_file(argv[5]) ? 1 : man(argv[2], argv[3], argv[4]);
    else if (argc == 3 && strcmp(argv[1], "bash") == 0)
        rc = to_file(argv[2]) ? 1 : bash();
    else if (argc == 3 && strcmp(argv[1], "zsh") == 0)
        rc = to_file(argv[2]) ? 1 : zsh();
    else
        fprintf(stderr, "usage: spectro-gendoc man TEMPLATE VERSION DATE OUT | bash OUT | zsh OUT\n");
    if (rc == 0 && fclose(stdout) != 0)
        rc = 1;
    return rc;
}
