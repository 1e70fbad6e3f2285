#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

struct Item {
    std::string name;
    int weight;
};

static std::vector<Item> make_items(int n)
{
    std::vector<Item> v;
    for (int i = 0; i < n; i++)
        v.push_back({"item" + std::to_string(i % 4), (i * 37) % 11});
    return v;
}

int main(int argc, char **argv)
{
    auto items = make_items(8 + argc);
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.weight < b.weight; });
    std::map<std::string, int> totals;
    for (const auto &it : items) totals[it.name] += it.weight;
    int s = 0;
    for (const auto &[k, v] : totals) s += v * (int)k.size();
    if (argc > 1) totals.erase(argv[1]);
    auto it = std::find_if(items.begin(), items.end(), [](const Item &i) { return i.weight > 9; });
    std::printf("%d %zu %d\n", s, totals.size(), it != items.end() ? it->weight : -1);
    return 0;
}
