#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

// Every thread does a fixed amount of work: the counts do not depend on
// scheduling. Counters are updated atomically (-fprofile-update=atomic).
static std::atomic<long> total{0};
static std::mutex mu;
static long guarded = 0;

static long work(int id, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += (i * id) % 7;
    return s;
}

static void worker(int id)
{
    long s = work(id, 20000);
    total += s;
    std::lock_guard<std::mutex> lk(mu);
    guarded += id;
}

int main(int argc, char **)
{
    const int nthreads = 4 + argc;
    std::vector<std::thread> pool;
    for (int i = 0; i < nthreads; i++)
        pool.emplace_back(worker, i);
    for (auto &t : pool)
        t.join();
    std::thread([] { total += 1; }).join();
    std::printf("%ld %ld\n", total.load(), guarded);
    return 0;
}
