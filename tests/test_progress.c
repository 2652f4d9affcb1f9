/* test_progress: the bar's text for one file and for a batch (files done, audio seconds),
 * written to a memory stream; nothing drawn before half a second, nothing when disabled,
 * the line cleared by progress_clear. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clock.h"
#include "progress.h"

static char buf[4096];

static FILE *open_buf(void)
{
    memset(buf, 0, sizeof buf);
    return fmemopen(buf, sizeof buf, "w");
}

static void test_one_file(void)
{
    FILE *f = open_buf();
    progress p;
    progress_begin(&p, f, 1, 48000.0, 96000);
    progress_update(&p, 48000);
    fflush(f);
    CHECK_MSG(buf[0] == 0, "drawn before half a second: %s", buf);
    sp_sleep(0.6);
    progress_update(&p, 48000);
    fflush(f);
    CHECK_MSG(strstr(buf, " 50.0%") != NULL, "no percent: %s", buf);
    progress_end(&p);
    fflush(f);
    CHECK_MSG(strstr(buf, "\r\033[K") != NULL, "the line is not cleared: %s", buf);
    fclose(f);
}

static void test_files(void)
{
    FILE *f = open_buf();
    progress p;
    progress_begin_files(&p, f, 1, 4);
    progress_file(&p, 48000.0, 48000);
    progress_file_done(&p, 48000);   /* 1 s */
    progress_file(&p, 8000.0, 16000);
    progress_file_done(&p, 4000);    /* 0.5 s (it failed half-way) */
    progress_file(&p, 16000.0, 32000);
    sp_sleep(0.6);
    progress_update(&p, 16000);      /* 1 s of the third: 2.5 s, 2.5 of 4 files */
    fflush(f);
    CHECK_MSG(strstr(buf, "2/4 files") != NULL, "no file count: %s", buf);
    CHECK_MSG(strstr(buf, "2.5 s of audio") != NULL, "audio seconds: %s", buf);
    CHECK_MSG(strstr(buf, "[##################............]") != NULL, "bar of 2.5/4: %s", buf);
    progress_clear(&p);
    fflush(f);
    CHECK(p.drawn == 0 && strstr(buf, "\r\033[K") != NULL);
    fclose(f);

    f = open_buf();
    progress_begin_files(&p, f, 0, 2);
    progress_file(&p, 48000.0, 48000);
    sp_sleep(0.6);
    progress_update(&p, 100);
    progress_end(&p);
    fflush(f);
    CHECK_MSG(buf[0] == 0, "drawn while disabled: %s", buf);
    fclose(f);
}

int main(void)
{
    test_one_file();
    test_files();
    return check_done("test_progress");
}
