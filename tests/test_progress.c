/* test_progress: the bar's text for one file and for a batch (files done, audio seconds),
 * also as the sum of other bars' taps, written to a memory stream; nothing drawn before
 * half a second, nothing when disabled, the line cleared by progress_clear. */
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

/* Two sessions' bars (drawing nothing) publish to taps; the batch's bar draws their sum. */
static void test_taps(void)
{
    FILE *f = open_buf();
    progress bar, a, b;
    progress_tap taps[2];
    progress_begin_files(&a, NULL, 0, 1);
    progress_publish_to(&a, &taps[0]);
    progress_begin_files(&b, NULL, 0, 1);
    progress_publish_to(&b, &taps[1]);
    progress_begin_files(&bar, f, 1, 4);
    progress_watch(&bar, taps, 2);
    progress_file(&a, 48000.0, 96000);
    progress_file_done(&a, 96000);   /* 2 s, one file */
    progress_file(&a, 48000.0, 96000);
    progress_update(&a, 48000);      /* 1 s, half a file */
    progress_file(&b, 8000.0, 16000);
    progress_update(&b, 4000);       /* 0.5 s, a quarter */
    sp_sleep(0.6);
    progress_update(&bar, 0);
    fflush(f);
    CHECK_MSG(strstr(buf, "1/4 files") != NULL, "no file count: %s", buf);
    CHECK_MSG(strstr(buf, "3.5 s of audio") != NULL, "audio seconds: %s", buf);
    CHECK_MSG(strstr(buf, "[#############.................]") != NULL, "bar of 1.75/4: %s", buf);
    progress_end(&bar);
    fclose(f);
}

int main(void)
{
    test_one_file();
    test_files();
    test_taps();
    return check_done("test_progress");
}
