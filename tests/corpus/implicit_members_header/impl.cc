#include "shapes.h"

Handler::~Handler() {}

void Collect::on(int v) { seen.push_back(std::to_string(v)); }
