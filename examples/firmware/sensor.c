#include "app.h"

int sensor_filter(int sample)
{
  static int last;
  int smoothed = (last + sample) / 2;
  last = sample;
  if (smoothed > 50)
    return 50;
  return smoothed;
}
