/* The "application" of the firmware example: compiled with --coverage, the
 * same in the firmware image and in the hosted build that is the oracle. */
#ifndef APP_H
#define APP_H

/* Runs the application on one input line; returns a status for main. */
int app_run(const char *input);

/* A tiny "sensor" filter in a second translation unit. */
int sensor_filter(int sample);

#endif
