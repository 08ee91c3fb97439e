"""Plan a few tram trips with the A* route search and print the routes."""

from citymap import ROUTES_FILE, STOPS_FILE, CityMap


def main():
    city = CityMap(STOPS_FILE, ROUTES_FILE)
    codes = sorted(city.stops)
    for start, goal, departure in [(codes[0], codes[-1], 4), (codes[-1], codes[0], 9)]:
        route = city.search(city.get_stop(start), city.get_stop(goal), departure)
        print(route)


if __name__ == "__main__":
    main()
