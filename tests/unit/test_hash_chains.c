/* Unit tests: the registries' hash tables (src/preload/rt/hash_chains.c).
 * Every entry added is found again, before and after each move to eight
 * times the buckets, which happens once the table holds as many entries as
 * it has buckets, up to its largest size; and a reader racing a move either
 * finds an entry or, looking again under the writers' lock as the
 * registries do, finds it then. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hash_chains.h"

struct entry {
    unsigned key;
    void *hash_next;
};

/* Two keys in eight share a hash: chains hold more than one entry. */
static unsigned hash_key(unsigned key)
{
    return (key / 8) * 2654435761u + key % 8 / 4;
}

static unsigned hash_of_entry(const void *e)
{
    return hash_key(((const struct entry *)e)->key);
}

#define MAX_ENTRIES 5000

#define MAX_BUCKETS 4096

static struct entry entries[MAX_ENTRIES];
static void *first_buckets[ST_CHAINS_FIRST];
static struct st_chains table;

static void reset_table(void)
{
    static const struct st_chains empty = ST_CHAINS_INIT(table, first_buckets, MAX_BUCKETS,
                                                         struct entry, hash_of_entry);
    table = empty;
    for (int i = 0; i < ST_CHAINS_FIRST; i++)
        first_buckets[i] = NULL;
}

/* The buckets the table has for n entries added. */
static unsigned buckets_for(unsigned n)
{
    unsigned size = ST_CHAINS_FIRST;
    while (n > size && size < MAX_BUCKETS)
        size *= 8;
    return size < MAX_BUCKETS ? size : MAX_BUCKETS;
}

static struct entry *find(unsigned key)
{
    for (struct entry *e = st_chains_first(&table, hash_key(key)); e;
         e = st_chains_next(&table, e))
        if (e->key == key)
            return e;
    return NULL;
}

static void add(unsigned i)
{
    entries[i].key = i * 7 + 1;
    st_chains_add(&table, hash_key(entries[i].key), &entries[i]);
}

static void test_every_entry_is_found_before_and_after_each_move(void **state)
{
    (void)state;
    reset_table();
    for (unsigned n = 0; n < MAX_ENTRIES; n++) {
        assert_null(find(n * 7 + 1));
        add(n);
        /* A move happens on the add after the table holds one entry per
         * bucket: 64, 512, then the largest size, 4096, to stay. */
        assert_int_equal(table.current->mask + 1, buckets_for(n + 1));
        assert_ptr_equal(table.current, n < ST_CHAINS_FIRST ? &table.first
                                                            : &table.larger[table.nlarger - 1]);
        if (n % 97 == 0 || n + 1 == ST_CHAINS_FIRST || n == ST_CHAINS_FIRST || n == 512)
            for (unsigned i = 0; i <= n; i++)
                assert_ptr_equal(find(i * 7 + 1), &entries[i]);
    }
    assert_int_equal(table.nlarger, 2);
    for (unsigned i = 0; i < MAX_ENTRIES; i++)
        assert_ptr_equal(find(i * 7 + 1), &entries[i]);
    assert_null(find(2));
    assert_int_equal(table.count, MAX_ENTRIES);
}

static void test_entries_leave_the_buckets_they_moved_from(void **state)
{
    (void)state;
    reset_table();
    for (unsigned n = 0; n <= ST_CHAINS_FIRST; n++)
        add(n);
    assert_int_equal(table.nlarger, 1);
    int used = 0;
    for (unsigned i = 0; i <= table.larger[0].mask; i++)
        used += table.larger[0].buckets[i] != NULL;
    assert_true(used > ST_CHAINS_FIRST / 2);
    /* What a reader still on the first buckets walks now leads into the
     * new ones: every entry it reaches is in the new level's chains. */
    for (int i = 0; i < ST_CHAINS_FIRST; i++)
        for (struct entry *e = first_buckets[i]; e; e = e->hash_next)
            assert_ptr_equal(find(e->key), e);
}

/* A reader that looks every added key up, over and over, while the writer
 * adds the rest under its lock. */
static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;
static unsigned published;
static int writer_done;
static unsigned passes; /* the reader's, over every published key */
static unsigned long misses, lookups;

static void *reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
        unsigned n = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
        for (unsigned i = 0; i < n; i++) {
            lookups++;
            if (find(i * 7 + 1) == &entries[i])
                continue;
            misses++;
            pthread_mutex_lock(&writers);
            struct entry *again = find(i * 7 + 1);
            pthread_mutex_unlock(&writers);
            if (again != &entries[i])
                return (void *)1;
        }
        __atomic_fetch_add(&passes, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void test_a_reader_racing_the_moves_finds_every_entry_under_the_lock(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        reset_table();
        published = 0;
        writer_done = 0;
        passes = 0;
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, reader, NULL), 0);
        for (unsigned n = 0; n < MAX_ENTRIES; n++) {
            /* Around the move, each add waits for the reader to be
             * walking the chains. */
            unsigned seen = __atomic_load_n(&passes, __ATOMIC_ACQUIRE);
            if ((n + 8 >= ST_CHAINS_FIRST && n <= ST_CHAINS_FIRST + 8) ||
                (n + 8 >= 512 && n <= 512 + 8))
                while (__atomic_load_n(&passes, __ATOMIC_ACQUIRE) < seen + 2)
                    ;
            pthread_mutex_lock(&writers);
            add(n);
            pthread_mutex_unlock(&writers);
            __atomic_store_n(&published, n + 1, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
        void *failed;
        assert_int_equal(pthread_join(t, &failed), 0);
        assert_null(failed);
    }
    assert_true(lookups > 0);
    print_message("%lu look-ups, %lu missed without the lock\n", lookups, misses);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_is_found_before_and_after_each_move),
        cmocka_unit_test(test_entries_leave_the_buckets_they_moved_from),
        cmocka_unit_test(test_a_reader_racing_the_moves_finds_every_entry_under_the_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
