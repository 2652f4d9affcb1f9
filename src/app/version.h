/* version: what --version prints: the version, the git revision built, and the features
 * this build has (window, microphone, PNG, CUDA with its architectures, the audio
 * libraries' versions). */
#ifndef SPECTRO_VERSION_H
#define SPECTRO_VERSION_H

#include <stdio.h>

void app_print_version(FILE *f);

#endif
