import pytest

from gantry_cluster import Cluster


@pytest.fixture
def cluster_factory():
    """Makes clusters and stops every one of them after the test."""
    made = []

    def make(**kwargs):
        cluster = Cluster(**kwargs)
        made.append(cluster)
        return cluster.start()

    yield make
    for cluster in made:
        cluster.cleanup()


@pytest.fixture
def cluster(cluster_factory):
    return cluster_factory()
